"""Feature apps register their job kinds; the jobs app runs them without importing a feature."""

from __future__ import annotations

import pytest

from apps.jobs.registry import job_handlers, job_kind_register


def test_the_feature_apps_register_their_job_kinds_at_start_up():
    from apps.alternatives.services import study_run_job
    from apps.commissioning.services import asbuilt_refresh_job
    from apps.counters.services import counters_read_job
    from apps.designs.services import design_compute_job
    from apps.exports.services import export_build_job
    from apps.measurements.services import measurements_read_job

    assert job_handlers() == {
        "compute": design_compute_job,
        "export": export_build_job,
        "asbuilt": asbuilt_refresh_job,
        "alternatives": study_run_job,
        "counters": counters_read_job,
        "measurements": measurements_read_job,
    }


def test_registering_the_same_handler_again_is_harmless_and_another_one_is_refused():
    job_kind_register("compute", "apps.designs.services.design_compute_job")
    with pytest.raises(ValueError, match=r"already handled by apps.designs.services.design_compute_job"):
        job_kind_register("compute", "apps.exports.services.export_build_job")
