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


def test_the_upload_apps_register_where_their_finished_jobs_are_read():
    """The job page moves on to a read upload's result page, which the app that reads the upload names."""
    from apps.jobs import registry

    assert registry._RESULT_PAGES == {
        "measurements": "apps.measurements.views.upload_result_page",
        "asbuilt": "apps.commissioning.views.asbuilt_result_page",
        "counters": "apps.counters.views.counters_result_page",
    }


def test_a_result_page_is_given_only_for_a_succeeded_job_of_a_registered_kind():
    from types import SimpleNamespace

    from apps.jobs.registry import job_result_page

    assert job_result_page(SimpleNamespace(kind="export", status="succeeded")) is None
    assert job_result_page(SimpleNamespace(kind="counters", status="running")) is None
    with pytest.raises(ValueError, match=r"already has its result page"):
        from apps.jobs.registry import job_result_page_register

        job_result_page_register("counters", "apps.designs.views.design_detail")
