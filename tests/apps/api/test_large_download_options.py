"""Every file of a revision past the inline limit, with every option it takes: a build job, then the file; never a 5xx.

GIVEN alice's computed design, made "large" by DOWNLOAD_INLINE_MAX_CABLES = 0 (as the other large-download tests
      do: every rendered file is then built by a worker, the path a revision of more than 2,500 cables takes)
WHEN a download of each kind is asked for with each option it takes alone, and with all of them at once
     (the percent rule, then the failure-rate rule), and the same through POST .../exports/
THEN each answers 202 naming a job whose payload is plain JSON, the job (run here as a worker runs it) builds the
     file under the key the web asked for, and the same download then answers 200 with it; nothing answers 5xx
     (a Decimal spares_percent in the job's params once made this a 500 with an HTML page)
"""

from __future__ import annotations

import json

import pytest

from apps.designs.models import LinkRecord
from apps.jobs.models import Job
from apps.jobs.runner import run_job
from deliverables.registry import DELIVERABLES
from tests.apps.api.conftest import rev_url

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

FAILURE_RATE = {
    "spares_rule": "failure-rate",
    "spares_afr_percent": "transceiver:2,*:0.5",
    "spares_replenish_hours": "720",
    "spares_service_level_percent": "switch:99,*:95",
}


def _values(design) -> dict:
    rack = LinkRecord.objects.filter(revision__design=design).exclude(a_rack="").values_list("a_rack", flat=True)[0]
    row = rack.rsplit(".", 1)[1].rstrip("0123456789")
    return {
        "page_size": "letter",
        "row": row,
        "rack": rack,
        "test_limit": "budget",
        "spares_percent": "transceiver:2,fiber:5,*:12.5",
    }


def _combos(kind: str, values: dict) -> list[dict]:
    takes = DELIVERABLES[kind].options
    single = [{k: v} for k, v in values.items() if k in takes]
    every = {k: v for k, v in values.items() if k in takes}
    combos = [{}, *single, {**every, "csv": "raw"} if kind.endswith(".csv") else every]
    if "spares_rule" in takes:
        combos.append({**{k: v for k, v in every.items() if k != "spares_percent"}, **FAILURE_RATE})
    return [dict(c) for c in dict.fromkeys(tuple(sorted(c.items())) for c in combos)]  # each once


def _download(client, url: str, params: dict):
    r = client.get(url, params)
    assert r.status_code < 500, (url, params, r.status_code, r.content[:300])
    assert r.status_code == 202, (url, params, r.status_code, r.content[:300])
    job = Job.objects.get(pk=r.json()["id"])
    json.dumps(job.params)  # plain JSON: what the worker reads back
    assert run_job(str(job.pk)) == "succeeded", Job.objects.get(pk=job.pk).error
    again = client.get(url, params)
    assert again.status_code == 200, (url, params, again.status_code, again.content[:300])
    return again


@pytest.mark.parametrize("kind", [k for k in DELIVERABLES if k not in ("topology.ibnetdiscover", "workloads.pdf")])
def test_every_option_of_a_large_revisions_file_is_built_in_the_background(alice, computed, settings, kind):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    url = rev_url(computed, tail=f"downloads/{kind}")
    for params in _combos(kind, _values(computed)):
        _download(alice, url, params)


def test_the_export_of_a_priced_file_with_a_decimal_spares_percent_is_queued(alice, computed, settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0
    for kind in ("bom.csv", "bom.pdf"):
        r = alice.post(
            rev_url(computed, tail="exports/"),
            {"kind": kind, "options": {"spares_percent": "transceiver:7.25,*:1", "date": "2026-12-01"}},
            format="json",
        )
        assert r.status_code == 202, r.content
        job = r.json()["id"]
        assert run_job(job) == "succeeded", Job.objects.get(pk=job).error
        assert alice.get(f"/api/v1/jobs/{job}/file").status_code == 200
