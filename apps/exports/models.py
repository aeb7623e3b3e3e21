"""The artifact store's records: one row per rendered file, and the PostgreSQL store's chunks."""

from __future__ import annotations

from django.db import models


class Artifact(models.Model):
    """A deliverable rendered once for (revision, kind, options, renderer version) and kept in the artifact
    storage (settings.STORAGES["artifacts"]) under `name`.

    `key` hashes everything the file's bytes depend on (apps.exports.artifacts.artifact_key), so a new
    renderer, catalog or price-list version makes a new artifact instead of serving a stale one. The row is
    written only after the file is stored whole; deleting it (or its revision) deletes the file.
    """

    revision = models.ForeignKey("designs.Revision", on_delete=models.CASCADE, related_name="artifacts")
    kind = models.CharField(max_length=64)
    # settings.ARTIFACT_STORE when it was stored: after a change of store, rows of the other one are ignored
    # (and age out), never served from a storage that lacks their file.
    store = models.CharField(max_length=16, default="files")
    key = models.CharField(max_length=64)
    renderer_version = models.CharField(max_length=64)
    options = models.JSONField(default=dict, blank=True)
    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    build_seconds = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "store"], name="artifact_key_store")]
        indexes = [models.Index(fields=["revision", "kind"], name="artifact_revision_kind")]

    def __str__(self) -> str:
        return f"{self.kind} of revision {self.revision_id} ({self.size} bytes)"


class StoredChunk(models.Model):
    """One piece (up to 1 MiB) of a file in the database storage (apps.exports.storage.DatabaseStorage).

    A file's chunks are inserted in one transaction, so another process sees all of them or none.
    """

    name = models.CharField(max_length=255)
    seq = models.PositiveIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "seq"], name="storedchunk_name_seq")]

    def __str__(self) -> str:
        return f"{self.name} chunk {self.seq}"
