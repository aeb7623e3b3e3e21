"""`manage.py plan SPEC --out DIR`: compute a design from a YAML/JSON spec and write its files."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.designs.services import design_limits
from engine.catalog import Catalog, load_catalog
from engine.errors import CatalogError, SpecError
from engine.guard import check_spec
from engine.inputgate import InputRefused, load_yaml
from engine.outputs import write_plan
from engine.physical.catalog import CatalogError as MediaCatalogError
from engine.pipeline import compute_design
from engine.presets import list_presets, load_preset
from engine.spec import DesignSpec, load_spec_text, parse_spec


class Command(BaseCommand):
    help = "Compute a fabric design from a spec file (YAML or JSON, or preset:KEY) and write its outputs to --out."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "spec", help=f"spec file path, '-' for standard input, or preset:KEY (presets: {', '.join(list_presets())})"
        )
        parser.add_argument("--out", required=True, help="output directory (created if missing)")
        parser.add_argument("--catalog", help="YAML file with extra catalog entries (servers, switches, media)")
        parser.add_argument(
            "--deliverables",
            default="all",
            help="which deliverables to write: all (default), none, or a comma list of names "
            "such as bom.pdf,cables.csv (see docs/deliverables.md)",
        )
        parser.add_argument("--revision-label", default="r1", help="revision printed on every PDF page")
        parser.add_argument(
            "--csv",
            choices=("safe", "raw"),
            default="safe",
            help="CSV files: safe (default) writes a text cell beginning with = + - @ tab or CR "
            "with a leading ' so spreadsheets never run it; raw writes every cell unchanged",
        )

        parser.add_argument(
            "--spares-rule",
            choices=("percent", "failure-rate"),
            default="percent",
            help="BOM spares: percent (default: --spares-percent, none when unset) or failure-rate (the Poisson "
            "quantile of the failures expected in the replenishment time; docs/deliverables.md)",
        )
        parser.add_argument("--spares-percent", default="", help='percent rule: "5" or "transceiver:2,fiber:5,*:1"')
        parser.add_argument(
            "--spares-afr-percent",
            default="",
            help='failure-rate rule: annual failure rate %%, "2" or "transceiver:2,*:1" '
            "(unset: placeholder defaults, not rates from any source)",
        )
        parser.add_argument("--spares-replenish-hours", default="", help='failure-rate rule: "720" or "switch:2160"')
        parser.add_argument(
            "--spares-service-level-percent", default="", help='failure-rate rule: "95" or "switch:99,*:95"'
        )

    def _spares_options(self, opts: dict) -> dict:
        """The BOM files' spares options from the --spares-* arguments; a bad value stops with its option."""
        from engine.orders.rule_choice import FAILURE_RATE, spares_rule_from_params

        try:
            rule = spares_rule_from_params(opts)
        except ValueError as exc:
            name, _, message = str(exc).partition(": ")
            raise CommandError(f"--{name.replace('_', '-')}: {message}") from None
        if rule is None:
            return {}
        if rule.kind == FAILURE_RATE:
            return {"spares_failure_rate": rule.to_dict()}
        return {"spares_percent": dict(rule.to_dict()["percents"])}

    def handle(
        self,
        *args: Any,
        spec: str,
        out: str,
        catalog: str | None,
        deliverables: str = "all",
        revision_label: str = "r1",
        verbosity: int = 1,
        csv: str = "safe",
        **opts: Any,
    ) -> None:
        only = self._deliverables(deliverables)
        spares = self._spares_options(opts)
        design = self._load_spec(spec)
        cat = self._load_catalog(catalog)
        t0 = time.perf_counter()

        def progress(stage: str, done: int, total: int) -> None:
            if verbosity > 1:
                self.stderr.write(f"[{done}/{total}] {stage}")

        limits = design_limits()
        try:
            # The save-time checks first (catalog keys, feasibility, size limits), with their warnings.
            for w in check_spec(design, cat, limits).warnings:
                self.stdout.write(self.style.WARNING(f"warning: {w}"))
            result = compute_design(design, cat, progress, limits)
        except SpecError as exc:
            raise CommandError(_spec_message(exc)) from None
        raw = csv == "raw"
        # The deliverables' cables.csv (the engine's columns, then the installer's) takes the engine's place.
        schedule = only is None or "cables.csv" in only
        paths = write_plan(result, Path(out), catalog=cat, raw_csv=raw, cables=not schedule)
        if only != []:
            from deliverables import write_deliverables

            paths += [
                p
                for p in write_deliverables(
                    result,
                    Path(out),
                    revision_label=revision_label,
                    only=only,
                    options={
                        "raw_csv": raw,
                        **spares,
                        "counter_thresholds": getattr(settings, "COUNTER_THRESHOLDS", None),
                    },
                )
                if p not in paths
            ]
        s = result.summary
        net = s["networks"]["compute"]
        self.stdout.write(
            f"{s['name']}: {s['servers']:,} servers, {s['gpus']:,} GPUs, {net['tiers']} tiers, "
            f"switches {net['switches']}, links {s['links_total']:,} in {time.perf_counter() - t0:.2f} s"
        )
        for message in result.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {message}"))
        from deliverables.bom import completeness_notice, missing_lines

        notice = completeness_notice(s)
        if notice:
            self.stdout.write(self.style.WARNING(f"{notice}: the BOM lacks their parts"))
            for line in missing_lines(s):
                self.stdout.write(self.style.WARNING(f"  {line}"))
        configs = [p for p in paths if "configs" in p.parts]
        for p in paths:
            if p not in configs:
                self.stdout.write(f"wrote {p}")
        if configs:
            self.stdout.write(f"wrote {len(configs)} configuration files under {Path(out) / 'configs'}")

    def _deliverables(self, arg: str) -> list[str] | None:
        """None = all, [] = none, else the named documents (checked before any work is done)."""
        from deliverables.registry import FOLDER_FILES

        if arg == "all":
            return None
        if arg == "none":
            return []
        names = [n.strip() for n in arg.split(",") if n.strip()]
        unknown = [n for n in names if n not in FOLDER_FILES]
        if unknown:
            raise CommandError(f"--deliverables: unknown {', '.join(unknown)}; known: {', '.join(FOLDER_FILES)}")
        return names

    def _load_spec(self, arg: str) -> DesignSpec:
        try:
            if arg.startswith("preset:"):
                try:
                    return parse_spec(load_preset(arg.split(":", 1)[1]))
                except KeyError:
                    raise CommandError(f"unknown preset {arg!r}; presets: {', '.join(list_presets())}") from None
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            text = sys.stdin.read(limit + 1) if arg == "-" else _read(arg, limit)  # over the limit: refused
            return load_spec_text(text, max_chars=limit)
        except SpecError as exc:
            raise CommandError(_spec_message(exc)) from None

    def _load_catalog(self, path: str | None) -> Catalog:
        if not path:
            return load_catalog()
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            # Several sections of entries: a few levels deeper than one custom part (apps/catalog/services.py).
            extra = load_yaml(_read(path, limit), max_chars=limit, max_depth=12)
        except InputRefused as exc:
            raise CommandError(f"catalog {path}: {exc.describe('not acceptable YAML')}") from None
        if extra is not None and not isinstance(extra, dict):
            raise CommandError(f"catalog {path}: write sections (servers:, switches:, media:) as a YAML mapping")
        try:
            return load_catalog(extra or {})
        except (CatalogError, MediaCatalogError, TypeError, AttributeError, KeyError, ValueError) as exc:
            raise CommandError(f"catalog {path}: {exc}") from None


def _read(path: str, limit: int | None = None) -> str:
    """The file's text; with `limit`, at most limit + 1 characters (the gate then refuses it as too large)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read() if limit is None else fh.read(limit + 1)
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"cannot read {path}: not UTF-8 text") from None


def _spec_message(exc: SpecError) -> str:
    lines = [f"  {e}" for e in exc.errors]
    return "the spec is not valid:\n" + "\n".join(lines)
