"""ibqueryerrors text in the tool's format for the ports of a stored plan (the ibsim test reads the real tool)."""

from __future__ import annotations

from apps.designs.models import LinkRecord
from engine.ifnames import ib_port_number


def switch_links(revision, n: int = 2, tier: str | None = None) -> list[LinkRecord]:
    """The first `n` links whose end a is a switch port (an IB port number), in link order."""
    rows = LinkRecord.objects.filter(revision=revision, network="compute").order_by("link_id")
    if tier:
        rows = rows.filter(tier=tier)
    out = [lk for lk in rows if lk.a_device.startswith("CF-") and ib_port_number(lk.a_port) is not None]
    return out[:n]


def ibqueryerrors(ports: dict[tuple[str, int], dict[str, int]], checked: int = 100) -> str:
    """`ports`: (node description, port) -> {IB counter name: value}."""
    lines = []
    nodes: dict[str, list] = {}
    for (desc, port), counters in ports.items():
        nodes.setdefault(desc, []).append((port, counters))
    for i, (desc, items) in enumerate(nodes.items()):
        guid = f"0x2c9000000{i:04x}"
        lines.append(f'Errors for {guid} "{desc}"')
        for port, counters in items:
            fields = " ".join(f"[{k} == {v}]" for k, v in counters.items())
            lines.append(f"   GUID {guid} port {port}: {fields}")
    lines += [
        "",
        f"## Summary: 20 nodes checked, {len(nodes)} bad nodes found",
        f"##          {checked} ports checked, {len(ports)} ports have errors beyond threshold",
        "## Thresholds: ",
        "## Suppressed:",
    ]
    return "\n".join(lines) + "\n"


def errors_on(links, **counters) -> str:
    return ibqueryerrors({(lk.a_device, ib_port_number(lk.a_port)): counters for lk in links})
