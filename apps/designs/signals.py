"""Deleting a revision (with its design, its owner, or from the admin) drops its row partitions first."""
from __future__ import annotations

from django.db.models.signals import pre_delete
from django.dispatch import receiver

from .models import Revision
from .partitions import drop_partitions


@receiver(pre_delete, sender=Revision, dispatch_uid="designs.revision_drop_partitions")
def revision_drop_partitions(sender, instance: Revision, **kwargs) -> None:
    # Runs before Django's DELETE of the revision's rows, which then finds nothing left in a dropped partition.
    drop_partitions([instance.pk])
