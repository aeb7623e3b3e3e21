"""Design actions: create, update, share, delete, compute (enqueue and run), compare revisions."""
from __future__ import annotations

import time

from django.db import transaction
from django.db.models import Max

from apps.jobs.models import Job, JobStatus
from apps.jobs.progress import DbProgress, JobCancelled
from apps.jobs.services import job_create, job_progress, job_succeed
from engine.catalog import load_catalog
from engine.errors import SpecError
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import SCHEMA_VERSION, parse_spec

from . import adapters
from .models import Access, CableRecord, Design, DesignShare, LinkRecord, Revision
from .storage import bulk_insert


def design_validate_spec(data) -> dict:
    """Normalized spec dict, or SpecError naming every bad field."""
    return parse_spec(data).to_dict()


def design_create(*, user, spec: dict | None = None, preset: str | None = None, name: str | None = None) -> Design:
    if preset:
        try:
            spec = load_preset(preset)
        except KeyError:
            raise SpecError.at("preset", f"unknown preset {preset!r}") from None
        if name:
            spec = {**spec, "name": name}
    if spec is None:
        raise SpecError.at("spec", "is required (or give a preset)")
    normalized = design_validate_spec(spec)
    return Design.objects.create(owner=user, name=normalized["name"], spec=normalized,
                                 schema_version=SCHEMA_VERSION, preset=preset or "")


def design_update(*, design: Design, spec: dict) -> Design:
    normalized = design_validate_spec(spec)
    design.spec = normalized
    design.name = normalized["name"]
    design.schema_version = SCHEMA_VERSION
    design.save(update_fields=["spec", "name", "schema_version", "updated_at"])
    return design


def design_delete(*, design: Design) -> None:
    design.delete()


def design_share(*, design: Design, user, access: str = Access.READ) -> DesignShare:
    if user.pk == design.owner_id:
        raise SpecError.at("user", "the owner already has full access")
    share, _ = DesignShare.objects.update_or_create(design=design, user=user, defaults={"access": access})
    return share


def design_unshare(*, design: Design, user) -> None:
    DesignShare.objects.filter(design=design, user=user).delete()


def design_compute_enqueue(*, design: Design, user, idempotency_key: str | None = None) -> Job:
    """Queue a computation of the design's current spec (snapshotted now, so later edits don't change it)."""
    if idempotency_key:
        existing = Job.objects.filter(created_by=user, idempotency_key=idempotency_key).first()
        if existing is not None:
            return existing
    return job_create(kind="compute", user=user, design=design, params={"spec": design.spec},
                      idempotency_key=idempotency_key)


def design_compute_job(*, job: Job, progress: DbProgress) -> dict:
    """Compute a job's design and store it as the next revision; nothing is visible until it all commits."""
    t0 = time.perf_counter()
    spec = parse_spec(job.params["spec"])
    catalog = load_catalog()
    progress.span = 70.0
    result = compute_design(spec, catalog, progress)
    compute_s = time.perf_counter() - t0
    total = len(result.links)

    def stored(n: int) -> None:
        job_progress(job_id=job.pk, stage="storing links", percent=70 + 25 * n / max(1, total))

    with transaction.atomic():
        design = Design.objects.select_for_update().get(pk=job.design_id)
        number = (design.revisions.aggregate(m=Max("number"))["m"] or 0) + 1
        rev = Revision.objects.create(
            design=design, number=number, spec=spec.to_dict(), spec_hash=adapters.spec_hash(spec.normalized),
            engine_version=result.engine_version, catalog_version=result.catalog_version,
            summary=result.summary, link_count=total, compute_seconds=round(compute_s, 3),
            created_by=job.created_by)
        bulk_insert(LinkRecord._meta.db_table, adapters.LINK_DB_COLUMNS, adapters.link_db_rows(result, rev.pk),
                    on_batch=stored)
        cables = bulk_insert(CableRecord._meta.db_table, adapters.CABLE_DB_COLUMNS,
                             adapters.cable_db_rows(result, rev.pk))
        Revision.objects.filter(pk=rev.pk).update(cable_count=cables)
        outcome = {"revision": number, "revision_id": rev.pk, "links": total, "cables": cables,
                   "seconds": round(time.perf_counter() - t0, 3)}
        # The job flips to succeeded in the same transaction as the revision: both or neither.
        if not job_succeed(job_id=job.pk, result=outcome):
            raise JobCancelled("the job stopped running before its result was stored")
    return outcome


def revision_compare(*, old: Revision, new: Revision) -> dict:
    """What changed between two revisions: counts per network and tier, links added/removed, BOM deltas."""
    def flat(summary: dict) -> dict:
        out = {"gpus": summary.get("gpus"), "servers": summary.get("servers"), "links_total": summary.get("links_total")}
        for net, data in (summary.get("networks") or {}).items():
            for role, n in (data.get("switches") or {}).items():
                out[f"{net} {role} switches"] = n
            for tier, n in (data.get("links") or {}).items():
                out[f"{net} {tier} links"] = n
        for line in summary.get("bom") or []:
            out[f"part {line['sku']}"] = line.get("quantity")
        return out

    a, b = flat(old.summary), flat(new.summary)
    counts = [{"item": k, "old": a.get(k), "new": b.get(k)} for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    key = ("a_device", "a_port", "b_device", "b_port")
    old_links = LinkRecord.objects.filter(revision=old).values_list(*key)
    new_links = LinkRecord.objects.filter(revision=new).values_list(*key)
    return {
        "old": old.number, "new": new.number, "counts": counts,
        "links_added": new_links.difference(old_links).count(),
        "links_removed": old_links.difference(new_links).count(),
    }


__all__ = ["design_create", "design_update", "design_delete", "design_share", "design_unshare",
           "design_compute_enqueue", "design_compute_job", "revision_compare", "JobStatus"]
