"""Training workload profiles: the `Workload` record and `parse_workloads()`.

A profile describes one training job: the model (parameters, layers, hidden size), the batch
(sequence length, micro-batch size, micro-batches per optimizer step = gradient accumulation), the
parallel layout (tensor t, pipeline p, data d, context c, expert e), precisions, optimizer state,
data-parallel sharding and the step time the user aims for.

`parse_workloads(data)` accepts a list whose items are a preset name ("gpt3-175b-hpn"), a mapping
with `preset:` plus overrides (nested mappings merge key by key), or a full mapping. Every problem
raises `SpecError` with a dotted path such as `workloads[0].parallelism.tensor`.

GPU count rule: the job uses t·p·d·c GPUs. Expert parallelism is carved out of the data-parallel
dimension (the Megatron-Core / DeepSpeed-MoE convention: the e expert shards of a layer live on e
data-parallel replicas), so it does not multiply the count; e must divide d.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from math import isfinite
from pathlib import Path
from typing import Any

import yaml

from ..errors import FieldError, SpecError

PRESET_DIR = Path(__file__).parent / "presets"

# Bytes per element. fp8 = 1 byte (E4M3/E5M2), bf16/fp16 = 2, fp32 = 4 (reference D.2).
PRECISION_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

# Optimizer state in bytes per parameter, *excluding* the working weights and gradients.
# Mixed-precision Adam keeps an fp32 master copy plus two fp32 moments = 4 + 4 + 4 = 12 bytes; with
# bf16 weights (2) and bf16 gradients (2) that is the 16 bytes/parameter of reference D.2.
# When the weights themselves are fp32 there is no separate master copy (see `optimizer_bytes`).
OPTIMIZERS = {"adam": (4, 8), "adamw": (4, 8), "sgd-momentum": (4, 4), "sgd": (4, 0)}  # (master, states)

DP_SHARDING = ("none", "optimizer", "full")
CHECKPOINTING = ("none", "selective", "full")
RANK_DIMS = ("tensor", "context", "pipeline", "data")
DEFAULT_RANK_ORDER = ("tensor", "context", "data", "pipeline")  # Megatron-Core default tp-cp-(ep-)dp-pp

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_NUM = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*([kmbgt]?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Parallelism:
    tensor: int = 1
    pipeline: int = 1
    data: int = 1
    context: int = 1
    expert: int = 1
    virtual_stages: int = 1  # interleaved 1F1B chunks per GPU (Llama 3 / Megatron "V")
    sequence_parallel: bool = True  # Megatron SP: activations outside TP regions are split over t
    rank_order: tuple[str, ...] = DEFAULT_RANK_ORDER  # innermost (fastest-varying rank) first

    @property
    def gpus(self) -> int:
        return self.tensor * self.pipeline * self.data * self.context


@dataclass(frozen=True)
class MoE:
    experts: int = 1
    top_k: int = 1
    moe_layers: int | None = None  # None = every layer
    expert_parameters: float | None = None  # None = derived: moe_layers · experts · 2 · h · ffn


@dataclass(frozen=True)
class Precision:
    parameters: str = "bf16"
    gradients: str = "bf16"
    activations: str = "bf16"


@dataclass(frozen=True)
class Workload:
    name: str
    parameters: float  # total parameters (dense + all experts)
    layers: int
    hidden_size: int
    sequence_length: int
    micro_batch_size: int = 1
    micro_batches: int = 1  # per optimizer step = gradient-accumulation steps
    attention_heads: int | None = None
    kv_heads: int | None = None
    ffn_hidden_size: int | None = None
    parallelism: Parallelism = Parallelism()
    moe: MoE = MoE()
    precision: Precision = Precision()
    optimizer: str | float = "adam"  # name or bytes of optimizer state per parameter
    dp_sharding: str = "none"  # none = all-reduce; optimizer = ZeRO-1 / distributed optimizer / FSDP
    # without re-sharding (RS grads + AG params once per step); full = ZeRO-3
    activation_checkpointing: str = "selective"
    activation_memory_gb: float | None = None  # measured activations per GPU (GB); None = the estimate
    gradient_compression: float = 1.0  # DP gradient bytes are divided by this (1 = none)
    overlap: float = 0.0  # fraction of network time hidden behind compute (user setting)
    target_step_time_s: float | None = None
    achieved_tflops_per_gpu: float | None = None  # alternative to target_step_time_s (model FLOPs 6·P·tokens)
    gpus: int = 0  # GPUs the job uses (= t·p·d·c)
    preset: str | None = None
    source: str | None = None  # where the preset's figures come from

    # ---- derived quantities (all documented where used) ----
    @property
    def ffn(self) -> int:
        return self.ffn_hidden_size or 4 * self.hidden_size

    @property
    def moe_layer_count(self) -> int:
        if self.moe.experts <= 1:
            return 0
        return self.moe.moe_layers if self.moe.moe_layers is not None else self.layers

    @property
    def expert_parameters(self) -> float:
        """Parameters inside the experts. Derived when not given: each MoE layer holds `experts` FFNs of two
        h x ffn matrices (GELU MLP) = 2·h·ffn parameters each. SwiGLU experts have three; set it explicitly."""
        if self.moe.experts <= 1:
            return 0.0
        if self.moe.expert_parameters is not None:
            return float(self.moe.expert_parameters)
        return float(self.moe_layer_count * self.moe.experts * 2 * self.hidden_size * self.ffn)

    @property
    def dense_parameters(self) -> float:
        return self.parameters - self.expert_parameters

    @property
    def active_parameters(self) -> float:
        """Parameters a token passes through: dense + top_k of the experts."""
        if self.moe.experts <= 1:
            return self.parameters
        return self.dense_parameters + self.expert_parameters * self.moe.top_k / self.moe.experts

    @property
    def tokens_per_step(self) -> int:
        """Tokens per optimizer step = b_m · s · m · d (context parallelism splits a sequence, it adds none)."""
        return self.micro_batch_size * self.sequence_length * self.micro_batches * self.parallelism.data

    def with_changes(self, **changes: Any) -> Workload:
        return replace(self, **changes)


# ------------------------------------------------------------------------------------------------
# presets


def list_workload_presets() -> dict[str, str]:
    """{preset key: one-line description} for every YAML file in engine/traffic/presets/."""
    out = {}
    for path in sorted(PRESET_DIR.glob("*.yaml")):
        out[path.stem] = yaml.safe_load(path.read_text()).get("description", "")
    return out


def load_workload_preset(key: str) -> dict:
    path = PRESET_DIR / f"{key}.yaml"
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", key or "") or not path.is_file():
        raise KeyError(key)
    data = yaml.safe_load(path.read_text())
    data.pop("description", None)
    return data


def _merge(base: Mapping, over: Mapping) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


# ------------------------------------------------------------------------------------------------
# parsing


class _Reader:
    """Reads typed fields out of one mapping, collecting FieldErrors instead of raising at the first."""

    def __init__(self, data: Mapping, path: str, errors: list[FieldError]):
        self.data, self.path, self.errors = data, path, errors
        self.used: set[str] = set()

    def p(self, key: str) -> str:
        return f"{self.path}.{key}"

    def err(self, key: str, msg: str) -> None:
        self.errors.append(FieldError(self.p(key), msg))

    def raw(self, key: str, default: Any = None) -> Any:
        self.used.add(key)
        v = self.data.get(key, default)
        return default if v is None else v

    def number(
        self,
        key: str,
        default: Any = None,
        *,
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        required: bool = False,
    ) -> Any:
        v = self.raw(key, None)
        if v is None:
            if required:
                self.err(key, "is required")
            return default
        if isinstance(v, bool):
            self.err(key, "must be a number")
            return default
        if isinstance(v, str):
            m = _NUM.match(v)
            if not m:
                self.err(key, f"must be a number (suffixes K, M, B, T allowed), got {v!r}")
                return default
            v = float(m.group(1)) * _SUFFIX[m.group(2).lower()]
        if not isinstance(v, (int, float)):
            self.err(key, "must be a number")
            return default
        if not isfinite(v):  # YAML's .nan / .inf, or "nan": no figure can be worked out from it
            self.err(key, "must be a finite number")
            return default
        if integer:
            if float(v) != int(v):
                self.err(key, "must be a whole number")
                return default
            v = int(v)
        if minimum is not None and v < minimum:
            self.err(key, f"must be >= {minimum:g}")
            return default
        if maximum is not None and v > maximum:
            self.err(key, f"must be <= {maximum:g}")
            return default
        return v

    def choice(self, key: str, default: str, choices) -> str:
        v = self.raw(key, default)
        if v not in choices:
            self.err(key, f"must be one of {', '.join(choices)}, got {v!r}")
            return default
        return v

    def boolean(self, key: str, default: bool) -> bool:
        v = self.raw(key, default)
        if not isinstance(v, bool):
            self.err(key, "must be true or false")
            return default
        return v

    def sub(self, key: str) -> _Reader:
        v = self.raw(key, {})
        if not isinstance(v, Mapping):
            self.err(key, "must be a mapping")
            v = {}
        return _Reader(v, self.p(key), self.errors)

    def unknown(self, known: set[str]) -> None:
        for k in self.data:
            if k not in known:
                self.errors.append(FieldError(self.p(str(k)), f"unknown field (known: {', '.join(sorted(known))})"))


_TOP = {
    "name",
    "preset",
    "description",
    "source",
    "parameters",
    "layers",
    "hidden_size",
    "sequence_length",
    "micro_batch_size",
    "micro_batches",
    "attention_heads",
    "kv_heads",
    "ffn_hidden_size",
    "parallelism",
    "moe",
    "precision",
    "optimizer",
    "dp_sharding",
    "activation_checkpointing",
    "activation_memory_gb",
    "gradient_compression",
    "overlap",
    "target_step_time_s",
    "achieved_tflops_per_gpu",
    "gpus",
}
_PAR = {"tensor", "pipeline", "data", "context", "expert", "virtual_stages", "sequence_parallel", "rank_order"}
_MOE = {"experts", "top_k", "moe_layers", "expert_parameters"}
_PREC = {"parameters", "gradients", "activations"}


def _parse_one(item: Any, path: str, design_gpus: int | None, errors: list[FieldError]) -> Workload | None:
    """One workload (a preset name, or fields over an optional preset), or None with its errors added."""
    resolved = _with_preset(item, path, errors)
    if resolved is None:
        return None
    item, preset, source = resolved
    n_before = len(errors)
    r = _Reader(item, path, errors)
    r.unknown(_TOP)
    name = r.raw("name")
    if not isinstance(name, str) or not name.strip():
        r.err("name", "is required (a non-empty string)")
        name = ""
    params = r.number("parameters", required=True, minimum=1)
    layers = r.number("layers", required=True, integer=True, minimum=1)
    hidden = r.number("hidden_size", required=True, integer=True, minimum=1)
    seq = r.number("sequence_length", required=True, integer=True, minimum=1)
    mbs = r.number("micro_batch_size", 1, integer=True, minimum=1)
    mbn = r.number("micro_batches", 1, integer=True, minimum=1)
    heads = r.number("attention_heads", None, integer=True, minimum=1)
    kv = r.number("kv_heads", None, integer=True, minimum=1)
    ffn = r.number("ffn_hidden_size", None, integer=True, minimum=1)
    parallelism = _read_parallelism(r.sub("parallelism"))

    rm = r.sub("moe")
    rm.unknown(_MOE)
    experts = rm.number("experts", 1, integer=True, minimum=1)
    top_k = rm.number("top_k", 1, integer=True, minimum=1)
    moe_layers = rm.number("moe_layers", None, integer=True, minimum=1)
    expert_params = rm.number("expert_parameters", None, minimum=0)

    rpr = r.sub("precision")
    rpr.unknown(_PREC)
    prec = Precision(
        *(rpr.choice(k, "bf16", tuple(PRECISION_BYTES)) for k in ("parameters", "gradients", "activations"))
    )

    opt = _read_optimizer(r)
    sharding = r.choice("dp_sharding", "none", DP_SHARDING)
    ckpt = r.choice("activation_checkpointing", "selective", CHECKPOINTING)
    act_mem = r.number("activation_memory_gb", None, minimum=0)
    comp = r.number("gradient_compression", 1.0, minimum=1)
    overlap = r.number("overlap", 0.0, minimum=0, maximum=1)
    step = r.number("target_step_time_s", None)
    if step is not None and step <= 0:
        r.err("target_step_time_s", "must be > 0")
        step = None
    tflops = r.number("achieved_tflops_per_gpu", None)
    if tflops is not None and tflops <= 0:
        r.err("achieved_tflops_per_gpu", "must be > 0")
        tflops = None
    gpus = r.number("gpus", None, integer=True, minimum=1)
    r.raw("description")
    if len(errors) > n_before:
        return None

    p = parallelism
    wl = Workload(
        name=name.strip(),
        parameters=float(params),
        layers=layers,
        hidden_size=hidden,
        sequence_length=seq,
        micro_batch_size=mbs,
        micro_batches=mbn,
        attention_heads=heads,
        kv_heads=kv,
        ffn_hidden_size=ffn,
        parallelism=parallelism,
        moe=MoE(experts=experts, top_k=top_k, moe_layers=moe_layers, expert_parameters=expert_params),
        precision=prec,
        optimizer=opt,
        dp_sharding=sharding,
        activation_checkpointing=ckpt,
        activation_memory_gb=None if act_mem is None else float(act_mem),
        gradient_compression=float(comp),
        overlap=float(overlap),
        target_step_time_s=step,
        achieved_tflops_per_gpu=tflops,
        gpus=p.tensor * p.pipeline * p.data * p.context,
        preset=preset,
        source=source,
    )
    errors += _cross_field_errors(wl, path, design_gpus=design_gpus, gpus=gpus)
    return wl


def _with_preset(item: Any, path: str, errors: list[FieldError]) -> tuple[Mapping, str | None, Any] | None:
    """(the workload's fields over its preset's, the preset's name, its source), or None with the error added."""
    preset = None
    source = None
    if isinstance(item, str):
        item = {"preset": item}
    if not isinstance(item, Mapping):
        errors.append(FieldError(path, "must be a preset name or a mapping of workload fields"))
        return None
    if "preset" in item and item["preset"] is not None:
        preset = item["preset"]
        try:
            base = load_workload_preset(str(preset))
        except KeyError:
            errors.append(
                FieldError(f"{path}.preset", f"unknown preset {preset!r} (known: {', '.join(list_workload_presets())})")
            )
            return None
        source = base.get("source")
        item = _merge(base, {k: v for k, v in item.items() if k != "preset"})
        item.setdefault("name", preset)
    return item, preset, source


def _read_parallelism(rp: _Reader) -> Parallelism:
    rp.unknown(_PAR)
    t = rp.number("tensor", 1, integer=True, minimum=1)
    pp = rp.number("pipeline", 1, integer=True, minimum=1)
    d = rp.number("data", 1, integer=True, minimum=1)
    c = rp.number("context", 1, integer=True, minimum=1)
    e = rp.number("expert", 1, integer=True, minimum=1)
    v = rp.number("virtual_stages", 1, integer=True, minimum=1)
    sp = rp.boolean("sequence_parallel", True)
    order = rp.raw("rank_order", list(DEFAULT_RANK_ORDER))
    if isinstance(order, str):
        order = [x.strip() for x in re.split(r"[-,\s]+", order) if x.strip()]
    alias = {"tp": "tensor", "cp": "context", "pp": "pipeline", "dp": "data"}
    order = [alias.get(str(x).lower(), str(x).lower()) for x in order] if isinstance(order, list) else None
    if order is None or sorted(order) != sorted(RANK_DIMS):
        rp.err(
            "rank_order", 'must list tensor, context, pipeline and data once each, innermost first (e.g. "tp-cp-pp-dp")'
        )
        order = list(DEFAULT_RANK_ORDER)
    return Parallelism(
        tensor=t,
        pipeline=pp,
        data=d,
        context=c,
        expert=e,
        virtual_stages=v,
        sequence_parallel=sp,
        rank_order=tuple(order),
    )


def _read_optimizer(r: _Reader) -> str | float:
    """An optimizer's name, or its bytes of state per parameter."""
    opt = r.raw("optimizer", "adam")
    if isinstance(opt, str) and opt not in OPTIMIZERS:
        m = _NUM.match(opt)
        if m and not m.group(2):
            opt = float(m.group(1))
        else:
            r.err("optimizer", f"must be one of {', '.join(OPTIMIZERS)} or bytes of state per parameter")
            opt = "adam"
    elif not isinstance(opt, str) and (isinstance(opt, bool) or not isinstance(opt, (int, float)) or opt < 0):
        r.err("optimizer", "must be an optimizer name or a non-negative number of bytes per parameter")
        opt = "adam"
    return opt


def _cross_field_errors(wl: Workload, path: str, *, design_gpus: int | None, gpus: int | None) -> list[FieldError]:
    """What the fields, each valid alone, cannot be together."""
    par, moe = wl.parallelism, wl.moe
    t, pp, d, c, e = par.tensor, par.pipeline, par.data, par.context, par.expert
    experts, top_k, heads, kv = moe.experts, moe.top_k, wl.attention_heads, wl.kv_heads
    out = []
    product = t * pp * d * c
    if gpus is not None and gpus != product:
        out.append(
            FieldError(
                f"{path}.parallelism.data",
                f"tensor·pipeline·data·context = {t}·{pp}·{d}·{c} = {product:,} GPUs, "
                f"but the workload says gpus: {gpus:,}",
            )
        )
    if design_gpus is not None and product > design_gpus:
        out.append(
            FieldError(
                f"{path}.parallelism.data",
                f"tensor·pipeline·data·context = {t}·{pp}·{d}·{c} = {product:,} GPUs, "
                f"more than the design's {design_gpus:,}",
            )
        )
    if d % e:
        out.append(
            FieldError(
                f"{path}.parallelism.expert",
                f"expert parallelism {e} must divide data parallelism {d} "
                "(expert shards live on data-parallel replicas)",
            )
        )
    if e > 1 and experts % e:
        out.append(FieldError(f"{path}.moe.experts", f"{experts} experts cannot be split over expert parallelism {e}"))
    if top_k > experts:
        out.append(FieldError(f"{path}.moe.top_k", f"top_k {top_k} exceeds the {experts} experts"))
    if pp > wl.layers:
        out.append(FieldError(f"{path}.parallelism.pipeline", f"{pp} pipeline stages for {wl.layers} layers"))
    if wl.sequence_length % c:
        out.append(
            FieldError(
                f"{path}.parallelism.context",
                f"context parallelism {c} must divide the sequence length {wl.sequence_length}",
            )
        )
    if heads is not None and heads % t:
        out.append(
            FieldError(f"{path}.parallelism.tensor", f"tensor parallelism {t} must divide the {heads} attention heads")
        )
    if kv is not None and heads is not None and kv > heads:
        out.append(FieldError(f"{path}.kv_heads", "cannot exceed attention_heads"))
    if experts > 1 and wl.expert_parameters >= wl.parameters:
        out.append(
            FieldError(
                f"{path}.moe.expert_parameters",
                f"expert parameters ({wl.expert_parameters:.3g}) must be fewer than the "
                f"total parameters ({wl.parameters:.3g})",
            )
        )
    return out


# Workloads one design is checked against: a handful of training jobs in practice. Each costs CPU at every save
# (its fields and step time, about 4 ms) and at every compute (its traffic analysis).
MAX_WORKLOADS = 32


def parse_workloads(data: Any, *, path: str = "workloads", design_gpus: int | None = None) -> list[Workload]:
    """Validate workload profiles. `data` is a list (or one item); raises SpecError listing every bad field."""
    if data is None:
        return []
    if isinstance(data, (str, Mapping)):
        data = [data]
    if not isinstance(data, list):
        raise SpecError.at(path, "must be a list of workload profiles or preset names")
    if len(data) > MAX_WORKLOADS:
        raise SpecError.at(
            path,
            f"{len(data):,} workloads; at most {MAX_WORKLOADS}: each is checked at every save and analysed at every "
            "compute (2,000 cost about 25 s of CPU per save)",
        )
    errors: list[FieldError] = []
    out: list[Workload] = []
    for i, item in enumerate(data):
        wl = _parse_one(item, f"{path}[{i}]", design_gpus, errors)
        if wl is not None:
            out.append(wl)
    seen: dict[str, int] = {}
    for i, wl in enumerate(out):
        if wl.name in seen:
            errors.append(FieldError(f"{path}[{i}].name", f"duplicate workload name {wl.name!r}"))
        seen[wl.name] = i
    if errors:
        raise SpecError(errors)
    return out


def optimizer_bytes(wl: Workload) -> float:
    """Optimizer state bytes per parameter. Named optimizers: fp32 master copy (4 B, only when the working
    weights are not fp32 already) + states (Adam: two fp32 moments = 8 B; SGD momentum 4 B)."""
    if not isinstance(wl.optimizer, str):
        return float(wl.optimizer)
    master, states = OPTIMIZERS[wl.optimizer]
    return float((master if wl.precision.parameters != "fp32" else 0) + states)
