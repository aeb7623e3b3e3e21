"""An artifact's file goes with its row: deleted with the artifact, its revision, design or owner."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from .models import Artifact

log = logging.getLogger(__name__)


@receiver(post_delete, sender=Artifact, dispatch_uid="exports.artifact_delete_file")
def artifact_delete_file(sender: type[Artifact], instance: Artifact, **kwargs: Any) -> None:
    # After the commit: a rolled-back delete keeps its file. A file whose delete fails (storage unreachable)
    # is an orphan, which the retention sweep deletes later.
    name = instance.name

    def delete() -> None:
        from .artifacts import artifact_storage

        try:
            artifact_storage().delete(name)
        except Exception:  # see above
            log.warning("could not delete artifact file %s; the retention sweep will", name, exc_info=True)

    transaction.on_commit(delete)
