"""What a worker does with a file it has just built is registered by the app that reads the file
(apps.exports.services.register_post_build): the qos app reads its report out of configs.zip, and exports itself
knows no QoS.

GIVEN alice's computed RoCE design, every download built by a worker (DOWNLOAD_INLINE_MAX_CABLES = 0)
WHEN the worker builds configs.zip
THEN the steps registered for configs.zip run on the stored artifact; one that fails is logged and the build
     still succeeds (the file is stored; its reader derives what it needs itself).
"""

from __future__ import annotations

import pytest

from apps.exports import services
from apps.exports.models import Artifact
from apps.jobs.runner import run_job
from apps.qos.selectors import qos_report_from_artifact
from tests.apps.api.conftest import alice, rev_url  # noqa: F401 - fixture
from tests.apps.api.test_qos import roce, roce_computed  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _large(settings):
    settings.DOWNLOAD_INLINE_MAX_CABLES = 0


def test_the_qos_app_registers_its_report_step_for_configs_zip():
    assert qos_report_from_artifact in services._post_build["configs.zip"]
    assert not any(kind.endswith(".pdf") for kind in services._post_build)


def test_a_step_for_a_file_nobody_builds_is_refused():
    with pytest.raises(ValueError, match=r"configs.tar"):
        services.register_post_build("configs.tar", lambda artifact: None)


def test_the_registered_steps_run_on_the_stored_file_and_a_failing_one_does_not_fail_the_build(
    alice,
    roce_computed,
    monkeypatch,
    caplog,
):
    seen: list[Artifact] = []

    def boom(artifact: Artifact) -> None:
        raise RuntimeError("cannot read it")

    monkeypatch.setattr(services, "_post_build", {})
    services.register_post_build("configs.zip", boom)
    services.register_post_build("configs.zip", seen.append)
    services.register_post_build("configs.zip", seen.append)  # registered twice: runs once

    job = alice.get(rev_url(roce_computed, tail="configs/")).json()
    assert run_job(job["id"]) == "succeeded"

    stored = Artifact.objects.get(kind="configs.zip", revision__design=roce_computed)
    assert [a.pk for a in seen] == [stored.pk]
    assert "post-build step" in caplog.text and "boom" in caplog.text
