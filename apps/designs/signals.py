"""Deleting a revision (with its design, its owner, or from the admin) drops its row partitions first.
A new account gets the shares made out to its username before it existed."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models.signals import post_save, pre_delete
from django.dispatch import receiver

from .models import DesignShare, Revision
from .partitions import drop_partitions


@receiver(pre_delete, sender=Revision, dispatch_uid="designs.revision_drop_partitions")
def revision_drop_partitions(sender: type[Revision], instance: Revision, **kwargs: Any) -> None:
    # Runs before Django's DELETE of the revision's rows, which then finds nothing left in a dropped partition.
    drop_partitions([instance.pk])


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="designs.link_pending_shares")
def link_pending_shares(
    sender: type[AbstractBaseUser], instance: AbstractBaseUser, created: bool, **kwargs: Any
) -> None:
    if created:
        DesignShare.objects.filter(user__isnull=True, username=instance.get_username()).update(user=instance)
