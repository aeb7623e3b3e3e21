"""The exported Prometheus rules use the installation's error-counter thresholds (COUNTER_THRESHOLDS_FILE), the
same the counter flags use, with the design's own `monitoring.thresholds` over them."""

from __future__ import annotations

import pytest
import yaml

from apps.exports.services import deliverable_lines
from tests.apps.api.conftest import compute_now
from tests.engine.conftest import DELETE, build

SPEC = {
    "name": "Small H100 fabric",
    "servers": {"model": "dgx-h100", "count": 32},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}

ROCE = {
    "servers": {"model": "hgx-8gpu", "count": 32},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "scalable_unit": DELETE},
}


def _expr(result, alert: str) -> str:
    # Through the service, as a download or an export job builds it: it hands the renderer the settings' thresholds.
    doc = yaml.safe_load("".join(deliverable_lines(kind="prometheus-rules.yaml", result=result, options=None)))
    return next(r["expr"] for g in doc["groups"] for r in g["rules"] if r.get("alert") == alert)


def test_the_app_wide_file_moves_the_alerts_and_the_spec_moves_them_again(settings):
    result = build(**ROCE)
    settings.COUNTER_THRESHOLDS = {}
    assert _expr(result, "FabricSymbolErrors").endswith(">= 1")
    settings.COUNTER_THRESHOLDS = {"symbol_errors_per_hour": 40, "flaps_per_hour": 6}  # what the file sets
    assert _expr(result, "FabricSymbolErrors").endswith(">= 40")
    assert _expr(result, "FabricLinkFlapping").endswith(">= 6")
    own = build(**ROCE, monitoring={"thresholds": {"symbol_errors_per_hour": 12}})
    assert _expr(own, "FabricSymbolErrors").endswith(">= 12")
    assert _expr(own, "FabricLinkFlapping").endswith(">= 6")


@pytest.mark.django_db
def test_a_stored_rules_file_is_not_reused_under_other_app_wide_thresholds(users, settings):
    from apps.designs.services import design_create
    from apps.exports.artifacts import artifact_key

    design = design_create(user=users.alice, spec=SPEC)
    compute_now(design, users.alice)
    rev = design.revisions.get(number=1)
    settings.COUNTER_THRESHOLDS = {}
    before = {k: artifact_key(revision=rev, kind=k, options={}) for k in ("prometheus-rules.yaml", "bom.csv")}
    settings.COUNTER_THRESHOLDS = {"symbol_errors_per_hour": 40}
    assert artifact_key(revision=rev, kind="prometheus-rules.yaml", options={}) != before["prometheus-rules.yaml"]
    assert artifact_key(revision=rev, kind="bom.csv", options={}) == before["bom.csv"]  # it reads no threshold
