"""The QoS app's part of the revision workspace: its section and the panel that loads the revision's QoS report
(apps/common/workspace.py). Registered from QosConfig.ready()."""

from __future__ import annotations

from django.http import HttpRequest

from apps.common.workspace import register_design_action, register_form_note, register_panel, register_section
from apps.designs.models import Revision


def register() -> None:
    register_section("congestion", "QoS", order=40, blurb="Congestion control, PFC headroom, switch configurations")
    register_panel("congestion", "qos/_ws_qos.html", context=qos_panel, order=10)
    register_design_action("QoS policy", "qos:policy", order=10)
    register_form_note("qos", "qos/_form_note.html")


def qos_panel(request: HttpRequest, revision: Revision) -> dict:
    return {"design": revision.design, "revision": revision, "s": revision.summary or {}}
