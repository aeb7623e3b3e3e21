"""Where the QoS page's figures and defaults come from, in words a user can read and follow.

The engine and docs cite sources by short keys (`[CL-RoCE]`, `(C.3)`: shared/reference/fabrics-qos-traffic.md).
On pages those keys become plain words that link to the Sources page, which names each source in full and says
where to find it. Titles and places are from the reference's source table.
"""

from __future__ import annotations

import re

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

# key -> (plain words used in running text, the source in full, where to find it)
SOURCES: dict[str, tuple[str, str, str]] = {
    "CL-RoCE": (
        "NVIDIA's Cumulus Linux RoCE guide",
        "NVIDIA Cumulus Linux 5.x user guide, page “RDMA over Converged Ethernet – RoCE”",
        "docs.nvidia.com/networking-ethernet-software/cumulus-linux-5xx/ (Layer 1 and switch ports › "
        "Quality of Service › RDMA over Converged Ethernet – RoCE)",
    ),
    "SONiC-QoS": (
        "SONiC's stock QoS template",
        "sonic-net/sonic-buildimage, files/build_templates/qos_config.j2 at commit 0791705b",
        "github.com/sonic-net/sonic-buildimage",
    ),
    "Meta-RoCE": (
        "Meta's RoCE paper (SIGCOMM 2024)",
        "Gangidi et al., “RDMA over Ethernet for Distributed Training at Meta Scale”, SIGCOMM 2024, "
        "and the Meta engineering blog of 2024-08-05",
        "doi.org/10.1145/3651890.3672233",
    ),
    "B.1": (
        "Meta's Llama 3 and RoCE production fabric",
        "fabricdesign's reference, section B.1, from Llama Team, “The Llama 3 Herd of Models” (arXiv 2407.21783) "
        "and Gangidi et al., SIGCOMM 2024",
        "arxiv.org/abs/2407.21783 and doi.org/10.1145/3651890.3672233",
    ),
    "C.1": (
        "the DSCP and queue conventions of NVIDIA, SONiC, Arista and Cisco compared",
        "fabricdesign's reference, section C.1: DSCP / priority / queue conventions, side by side",
        "docs/qos.md, and shared/reference/fabrics-qos-traffic.md C.1 in the source tree",
    ),
    "C.2": (
        "NVIDIA ConnectX's DCQCN defaults",
        "fabricdesign's reference, section C.2: DCQCN defaults (ConnectX firmware / mlxconfig, per port)",
        "docs/qos.md, and shared/reference/fabrics-qos-traffic.md C.2 in the source tree",
    ),
    "C.3": (
        "the PFC headroom formula (IEEE 802.1Qbb)",
        "fabricdesign's reference, section C.3: PFC headroom, the 802.1Qbb delay terms and a worked example",
        "docs/qos.md “PFC headroom”, and shared/reference/fabrics-qos-traffic.md C.3 in the source tree",
    ),
    "C.4": (
        "thresholds in microseconds of line rate (our arithmetic)",
        "fabricdesign's reference, section C.4: buffer thresholds in microseconds of line rate (derived)",
        "docs/qos.md, and shared/reference/fabrics-qos-traffic.md C.4 in the source tree",
    ),
}

# [CL-RoCE], [C.3], [CL-RoCE][C.2] and (C.3): a known key in brackets, or a reference section in parentheses
_CITATION = re.compile(r"\[(?P<b>[A-Za-z0-9.\-]+)\]|\((?P<p>[A-D]\.\d)\)")


def cite(text: str) -> SafeString:
    """`text` escaped, each known citation key turned into its plain words linking to the Sources page
    (unknown keys stay as written)."""
    page = reverse("designs:sources")
    out, last = [], 0
    for m in _CITATION.finditer(text):
        key = m.group("b") or m.group("p")
        if key not in SOURCES:
            continue
        out.append(escape(text[last : m.start()]))
        out.append(format_html('(<a href="{}#{}" class="cite">{}</a>)', page, key, SOURCES[key][0]))
        last = m.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above is escaped or built by format_html


def source_list() -> list[dict]:
    return [{"key": k, "words": w, "title": t, "where": where} for k, (w, t, where) in SOURCES.items()]
