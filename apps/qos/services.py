"""Writing a design's QoS policy: validated by the engine's parser, stored in the spec's `qos` section.

Only what differs from the defaults is stored, so the spec stays readable and the settings that follow the
traffic classes (PFC priorities, the hosts' DSCPs and PFC vector) keep following them unless they were set
to something else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.catalog.services import CustomPartsBroken, catalog_for
from apps.designs.models import Design
from apps.designs.services import design_update
from engine.errors import CatalogError, FieldError, SpecError
from engine.qos.checks import policy_save_errors
from engine.qos.policy import CLASS_NAMES, QosPolicy
from engine.spec import parse_spec

from .selectors import design_technology

_SECTIONS = ("ecn", "pfc", "mtu", "host", "dcqcn", "headroom", "sonic", "infiniband")


def qos_parse(data: Any, technology: str) -> QosPolicy:
    """The engine's policy for `data` (a spec `qos` value; None for the defaults). SpecError names each bad
    field (qos.roce.dscp). A `technology` key, as GET answers it, is accepted when it is the design's."""
    if isinstance(data, Mapping) and "technology" in data:
        if data["technology"] != technology:
            raise SpecError.at(
                "qos.technology",
                f"is {technology} for this design (its compute fabric's technology); change it in the spec",
            )
        data = {k: v for k, v in data.items() if k != "technology"}
    return QosPolicy.from_dict(data, technology)


def qos_sparse(policy: QosPolicy) -> dict | None:
    """The smallest `qos` value that parses back to `policy`: None for the defaults.

    Mode and classes are compared with the technology's defaults; every other section with what follows
    from them (PFC on the RoCE priority, hosts marking the classes' DSCPs), so a setting equal to the
    derived value is left out and keeps following the classes.
    """
    tech = policy.technology
    full = policy.to_dict()
    base = QosPolicy.defaults(tech).to_dict()
    out: dict = {k: full[k] for k in ("mode", "ethernet_os") if full[k] != base[k]}
    for name in CLASS_NAMES:
        diff = {k: v for k, v in full[name].items() if v != base[name][k]}
        if diff:
            out[name] = diff
    derived = QosPolicy.from_dict(out or None, tech).to_dict()
    for section in _SECTIONS:
        diff = {k: v for k, v in full[section].items() if v != derived[section][k]}
        if diff:
            out[section] = diff
    if QosPolicy.from_dict(out or None, tech) != policy:  # a safety net: never store something else
        out = {k: v for k, v in full.items() if k != "technology"}
    return out or None


def design_switch_oses(design: Design, policy: QosPolicy) -> tuple[str, ...]:
    """The OSes of the design's compute and storage switches under `policy` (nvue, sonic, eos, ib), as their
    catalog entries (the owner's custom parts included) name them."""
    try:
        spec = parse_spec({**design.spec, "qos": None})
        catalog = catalog_for(design.owner)[0]
    except (SpecError, CustomPartsBroken):
        return (policy.ethernet_os,)  # the rest of the design does not load: judge by the policy's own OS
    c, st = spec.compute, spec.storage
    models = [(m, c.technology) for m in (c.switch, c.spine_switch, c.core_switch) if m]
    if st.enabled:
        models.append((st.switch, st.technology))
    oses = set()
    for model, tech in models:
        sw = catalog.switches.get(model)
        if sw is None:
            continue  # an unknown model is the spec check's to report, at its field
        try:
            oses.add(sw.os_for(tech, policy.ethernet_os))
        except CatalogError:
            continue  # a model without an OS for its fabric: the design's computation reports it
    return tuple(sorted(oses)) or (policy.ethernet_os,)


def qos_save_errors(design: Design, policy: QosPolicy) -> list[tuple[str, str]]:
    """(path, message) for each setting the design's switches cannot be configured with (refused at save)."""
    return policy_save_errors(policy, design_switch_oses(design, policy))


def design_qos_update(*, design: Design, policy: Any) -> Design:
    """Replace the design's QoS policy (None: back to the defaults of its technology). SpecError at each bad
    field, the engine's cross-field rules for the design's switches included."""
    parsed = qos_parse(policy, design_technology(design))
    errors = qos_save_errors(design, parsed)
    if errors:
        raise SpecError([FieldError(path, message) for path, message in errors])
    return design_update(design=design, spec={**design.spec, "qos": qos_sparse(parsed)})


__all__ = ["design_qos_update", "design_switch_oses", "qos_parse", "qos_save_errors", "qos_sparse"]
