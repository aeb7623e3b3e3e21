"""The objects schemathesis's run works on (tests/apps/api/test_schemathesis_all_checks.py), and its config.

Every path parameter is pinned to a real object of the fuzzing user, so each operation answers its success
codes, not only 401/404: a computed design with a share, a custom part, a measurement upload, a finished export
job and a token. Destructive operations (delete a design, part, share or token) get objects of their own, so
they do not take the others' away.
"""

from __future__ import annotations

SPEC = {
    "name": "fuzz",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700"},
}
SWITCH = {
    "name": "Fuzz switch",
    "vendor": "Acme",
    "os": {"nvue": "swp", "sonic": "ethernet-lane"},
    "technology": ["ethernet"],
    "cages": 32,
    "form_factor": "osfp",
    "speeds": {"400": 2, "200": 4},
    "rack_units": 1,
    "power_kw": 1.5,
}


# operationId -> (statuses that count as refusing schema-invalid data besides the usual 4xx, why). If-Match is checked
# before the body (RFC 9110 evaluates preconditions before the content), so a stale or empty ETag answers 412
# to any body. Both schemathesis runs use it; docs/api.md ("Schema conformance") lists it.
REFUSALS: dict[str, tuple[list[int], str]] = {
    op: ([412], "If-Match is checked before the body: an ETag that does not match refuses any body with 412")
    for op in (
        "designs_update",
        "designs_qos_update",
        "designs_shares_put",
        "parts_replace",
        "price_list_replace",
    )
}
# The world pins design_id and number ("common" below) so that operations reach their success paths. A coverage
# case that negates a pinned path parameter is therefore sent with the pinned, valid value, yet schemathesis
# 4.32 still counts it as negative. Seen for the one operation whose other path parameter (snapshot_id) can hit an
# object the examples phase created: a 200 there answers valid data.
REFUSALS["revisions_utilization_retrieve"] = (
    [200],
    "a negated design_id or number is replaced by the world's pinned, valid value before it is sent",
)


def _compute(design, user) -> None:
    from apps.designs.services import design_compute_enqueue
    from apps.jobs.runner import run_job

    assert run_job(str(design_compute_enqueue(design=design, user=user).pk)) == "succeeded"


def build_world(user, other) -> dict:
    """Objects for `user` (shared with `other`); returns the schemathesis parameters that pin them."""
    from apps.api.auth import token_create
    from apps.catalog.services import custom_part_save, price_list_save
    from apps.designs.models import LinkRecord
    from apps.designs.services import design_create, design_share
    from apps.exports.services import export_enqueue
    from apps.jobs.runner import run_job
    from apps.measurements.uploads import measurement_upload

    design = design_create(user=user, spec=SPEC)
    _compute(design, user)
    rev = design.revisions.get(number=1)
    design_share(design=design, user=other, access="read")
    price_list_save(owner=user, currency="EUR", prices={"MQM9700-NS2F": "31000.00"})
    part = custom_part_save(user=user, section="switches", key="fuzz-switch", body=SWITCH)
    export = export_enqueue(revision=rev, kind="bom.csv", user=user, options=None)
    assert run_job(str(export.pk)) == "succeeded"
    fiber = "L000001-F1"
    upload = measurement_upload(
        revision=rev, user=user, text=f"fiber_id,measured_loss_db\n{fiber},0.2\n", filename="fuzz.csv"
    )
    rack = LinkRecord.objects.filter(revision=rev).values_list("a_rack", flat=True).first()
    # sacrificial objects of the destructive operations
    doomed_design = design_create(user=user, spec={**SPEC, "name": "doomed"})
    doomed_part = custom_part_save(user=user, section="switches", key="doomed-switch", body=SWITCH)
    doomed_token, _ = token_create(user=user, name="doomed")
    return {
        "common": {
            "path.design_id": design.pk,
            "path.number": 1,
            "path.part_id": part.pk,
            "path.job_id": str(export.pk),
            "path.upload_id": upload.pk,
            "path.username": other.get_username(),
            "path.kind": "bom.csv",
            "path.name": "policy.json",
            "path.key": "dgx-h100-superpod-4su",
            "path.section": "switches",
            "path.token_id": doomed_token.pk,
            "query.old": 1,
            "query.new": 1,
        },
        "rack": rack,
        "operations": {
            "designs_delete": {"path.design_id": doomed_design.pk},
            "parts_delete": {"path.part_id": doomed_part.pk},
        },
    }
