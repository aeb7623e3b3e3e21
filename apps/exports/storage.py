"""Storages for the artifact store (settings.STORAGES["artifacts"]), both atomic: a reader, in this process or
on another host, sees a file whole or not at all, and a writer killed mid-write leaves nothing behind.

- `AtomicFileSystemStorage` (the embedded default, under VAR_DIR/artifacts): the bytes go into an unnamed
  file (O_TMPFILE) in the target folder, which gets its name by linkat() only once complete. A killed
  writer's unnamed file is freed by the kernel. Where O_TMPFILE is unsupported it writes `<name>.part-<id>`
  and renames; `listdir` hides those and `stale_partials` lists them for the retention sweep.
- `DatabaseStorage`: 1 MiB chunks in exports_storedchunk, inserted in one transaction (a killed writer's
  transaction is rolled back by the server) and read back chunk by chunk, so a download streams from the
  database with one chunk in memory. Web and workers need no shared filesystem.

Any other Django storage works too, e.g. django-storages' S3Storage, whose PUT / multipart upload is atomic
in the same sense (README, Production).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage
from django.db import connection, transaction
from django.utils.deconstruct import deconstructible

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

log = logging.getLogger(__name__)

CHUNK = 1024 * 1024
PARTIAL = ".part-"


def test_stall(stage: str) -> None:
    """Test hook: JOB_TEST_STALL="writing:<seconds>" (never set in production) holds a write after its first
    chunk, so a test can kill the writer mid-write."""
    wanted, _, seconds = (settings.JOB_TEST_STALL or "").partition(":")
    if wanted == stage:
        log.warning("JOB_TEST_STALL: holding the artifact write at %r for %s s", stage, seconds)
        time.sleep(float(seconds))


def _chunks(content: IO[Any] | File) -> Iterator[bytes]:
    if hasattr(content, "chunks"):  # a Django File: rewinds itself when it can
        yield from content.chunks(CHUNK)
        return
    while True:
        data = content.read(CHUNK)
        if not data:
            return
        yield data


@deconstructible
class AtomicFileSystemStorage(FileSystemStorage):
    """FileSystemStorage whose files appear complete or not at all (see the module docstring).

    A name is written over, never renamed: artifact names are unique per build."""

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        return name

    def _save(self, name: str, content: IO[Any]) -> str:
        full = Path(self.path(name))
        full.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(full.parent, os.O_TMPFILE | os.O_WRONLY, 0o640)
        except (AttributeError, OSError):
            self._save_renamed(full, content)
            return name
        try:
            self._write(fd, content)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(full)
            _link_fd(fd, full)  # the file gets its name only now, complete
        finally:
            os.close(fd)
        return name

    def _save_renamed(self, full: Path, content: IO[Any]) -> None:
        tmp = full.with_name(f"{full.name}{PARTIAL}{uuid.uuid4().hex[:12]}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
        try:
            self._write(fd, content)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        os.close(fd)
        os.replace(tmp, full)

    @staticmethod
    def _write(fd: int, content: IO[Any]) -> None:
        first = True
        for data in _chunks(content):
            _write_all(fd, data)
            if first:
                first = False
                test_stall("writing")
        os.fsync(fd)

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        dirs, files = super().listdir(path)
        return dirs, [f for f in files if PARTIAL not in f]

    def stale_partials(self, older_than_s: float) -> list[str]:
        """Partial files of the rename fallback older than `older_than_s` (a killed writer's), as names."""
        root = Path(self.location)
        cutoff = time.time() - older_than_s
        if not root.is_dir():
            return []
        return [
            str(p.relative_to(root)) for p in root.rglob(f"*{PARTIAL}*") if p.is_file() and p.stat().st_mtime < cutoff
        ]

    def all_names(self) -> list[str]:
        root = Path(self.location)
        if not root.is_dir():
            return []
        return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and PARTIAL not in p.name]


AT_FDCWD = -100
AT_SYMLINK_FOLLOW = 0x400


def _link_fd(fd: int, path: Path) -> None:
    """linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, path, AT_SYMLINK_FOLLOW): names an O_TMPFILE file. (os.link
    calls link(), which would link the /proc symlink itself and fail with EXDEV.)"""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.linkat(AT_FDCWD, f"/proc/self/fd/{fd}".encode(), AT_FDCWD, os.fsencode(path), AT_SYMLINK_FOLLOW) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(path))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _chunk_count(name: str) -> int:
    """StoredChunk.objects.filter(name=name).count(), hand-written: it opens every download (apps/common/db.py)."""
    from .models import StoredChunk

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM {connection.ops.quote_name(StoredChunk._meta.db_table)} WHERE name = %s", [name]
        )
        return int(cursor.fetchone()[0])


def _read_chunk(name: str, seq: int) -> bytes | None:
    """One chunk's bytes, or None. On PostgreSQL in binary: as text, bytea travels hex-encoded, which the server
    encodes and the client decodes, about 3 ms of client CPU per MiB against 0.4 ms (a 53 MB file: 160 ms less
    per download); a psycopg cursor binding its parameters on the server is the one that can ask for it."""
    from .models import StoredChunk

    if connection.vendor != "postgresql":
        row = StoredChunk.objects.filter(name=name, seq=seq).values_list("data", flat=True).first()
        return None if row is None else bytes(row)
    import psycopg

    connection.ensure_connection()
    table = connection.ops.quote_name(StoredChunk._meta.db_table)
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(f"SELECT data FROM {table} WHERE name = %s AND seq = %s", [name, seq], binary=True)
        row = cursor.fetchone()
    return None if row is None else row[0]


class _ChunkReader(io.RawIOBase):
    """A file in DatabaseStorage, read one chunk (one query) at a time."""

    def __init__(self, name: str, count: int) -> None:
        self.name = name
        self._count = count
        self._seq = 0
        self._buf = b""
        self._pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: WriteableBuffer) -> int:
        if self._pos >= len(self._buf):
            if self._seq >= self._count:
                return 0
            data = _read_chunk(self.name, self._seq)
            if data is None:
                raise OSError(f"{self.name}: chunk {self._seq} is missing (the file was deleted while being read)")
            self._buf, self._pos, self._seq = data, 0, self._seq + 1
        view = memoryview(b)  # what BufferedReader passes already; the type says only "a writable buffer"
        n = min(len(view), len(self._buf) - self._pos)
        view[:n] = self._buf[self._pos : self._pos + n]
        self._pos += n
        return n


def _iter_chunks(name: str, count: int) -> Iterator[bytes]:
    for seq in range(count):
        data = _read_chunk(name, seq)
        if data is None:
            raise OSError(f"{name}: chunk {seq} is missing (the file was deleted while being read)")
        yield data


@deconstructible
class DatabaseStorage(Storage):
    """Files as chunks in the project's database (PostgreSQL in production): see the module docstring."""

    def __init__(self, chunk_size: int = CHUNK) -> None:
        self.chunk_size = chunk_size

    def _save(self, name: str, content: IO[Any]) -> str:
        from .models import StoredChunk

        with transaction.atomic():
            StoredChunk.objects.filter(name=name).delete()
            seq = 0
            for data in _chunks(content):
                for i in range(0, len(data), self.chunk_size):
                    StoredChunk.objects.create(name=name, seq=seq, data=data[i : i + self.chunk_size])
                    if seq == 0:
                        test_stall("writing")
                    seq += 1
            if seq == 0:
                StoredChunk.objects.create(name=name, seq=0, data=b"")
        return name

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        return name

    def _open(self, name: str, mode: str = "rb") -> File:
        from django.core.files import File

        if "w" in mode or "a" in mode:
            raise ValueError("DatabaseStorage files are written with save(), not opened for writing")
        count = _chunk_count(name)
        if not count:
            raise FileNotFoundError(name)
        return File(io.BufferedReader(_ChunkReader(name, count), buffer_size=self.chunk_size), name=name)

    def iter_chunks(self, name: str) -> Iterator[bytes]:
        """The file as its stored chunks, each the bytes the driver returns (no copy in between): what a download
        streams. Reading through open() costs two more copies of every byte (the reader's slice and the buffered
        read), which on a 53 MB file under 20 concurrent downloads kept the GIL from new requests.
        FileNotFoundError now, before the answer starts, when there is no such file."""
        count = _chunk_count(name)
        if not count:
            raise FileNotFoundError(name)
        return _iter_chunks(name, count)

    def delete(self, name: str) -> None:
        from .models import StoredChunk

        StoredChunk.objects.filter(name=name).delete()

    def exists(self, name: str) -> bool:
        from .models import StoredChunk

        return StoredChunk.objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        from django.db.models import Func, Sum

        from .models import StoredChunk

        total = StoredChunk.objects.filter(name=name).aggregate(n=Sum(Func("data", function="LENGTH")))["n"]
        if total is None:
            raise FileNotFoundError(name)
        return int(total)

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        from .models import StoredChunk

        prefix = f"{path.rstrip('/')}/" if path else ""
        dirs: set[str] = set()
        files: set[str] = set()
        for name in StoredChunk.objects.filter(name__startswith=prefix, seq=0).values_list("name", flat=True):
            head, sep, _tail = name[len(prefix) :].partition("/")
            (dirs if sep else files).add(head)
        return sorted(dirs), sorted(files)

    def all_names(self) -> list[str]:
        from .models import StoredChunk

        return list(StoredChunk.objects.filter(seq=0).values_list("name", flat=True))

    def get_created_time(self, name: str) -> datetime:
        from .models import StoredChunk

        row = StoredChunk.objects.filter(name=name, seq=0).values_list("created_at", flat=True).first()
        if row is None:
            raise FileNotFoundError(name)
        return row

    get_modified_time = get_created_time

    def stale_partials(self, older_than_s: float) -> list[str]:
        return []  # a transaction leaves no partial file

    def url(self, name: str | None) -> str:
        raise NotImplementedError("files in the database have no URL; they are served by the app")


def modified_at(storage: Storage, name: str) -> datetime | None:
    try:
        value = storage.get_modified_time(name)
    except (FileNotFoundError, NotImplementedError, OSError):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


S3_PART = 8 * 1024 * 1024  # every part but the last must be at least 5 MiB (S3's multipart rule)


def _parts(content: IO[Any], size: int) -> Iterator[bytes]:
    """The file's bytes in pieces of exactly `size` (the last shorter, however the reads come back); one empty
    piece for an empty file, so that every upload has a part to complete."""
    buf = b""
    sent = False
    while True:
        data = content.read(size - len(buf))
        if isinstance(data, str):
            data = data.encode()
        if data:
            buf += data
            if len(buf) < size:
                continue
        if buf or not sent:
            yield buf
            sent = True
        if not data:
            return
        buf = b""


@lru_cache(maxsize=1)
def s3_storage_class() -> type[Storage]:
    """S3ArtifactStorage, defined on first use so that django-storages and boto3 are imported only with the
    s3 store."""
    from storages.backends.s3 import S3Storage
    from storages.utils import clean_name

    @deconstructible(path="apps.exports.storage.S3ArtifactStorage")
    class _S3ArtifactStorage(S3Storage):
        """django-storages' S3Storage, writing every file as one multipart upload (an object becomes visible
        only when its upload is completed; a killed writer's parts stay invisible until the retention aborts
        the upload, or the bucket's AbortIncompleteMultipartUpload rule), with reads streamed from the
        object's body instead of spooled whole first."""

        def _save(self, name: str, content: IO[Any]) -> str:
            cleaned = clean_name(name)
            key = self._normalize_name(cleaned)
            params = self._get_write_parameters(key, content)
            if hasattr(content, "seek"):
                content.seek(0)
            client = self.connection.meta.client
            bucket = self.bucket.name
            upload = client.create_multipart_upload(Bucket=bucket, Key=key, **params)["UploadId"]
            try:
                parts = []
                for n, data in enumerate(_parts(content, S3_PART), 1):
                    etag = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=n, Body=data)["ETag"]
                    parts.append({"ETag": etag, "PartNumber": n})
                    if n == 1:
                        test_stall("writing")
                client.complete_multipart_upload(
                    Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts}
                )
            except BaseException:
                try:
                    client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload)
                except Exception:  # the write's own error matters; a stale upload is aborted by the retention
                    log.warning("could not abort the S3 upload of %s", key, exc_info=True)
                raise
            return cleaned

        def abort_stale_uploads(self, older_than_s: float) -> int:
            """Abort this store's multipart uploads begun more than older_than_s ago (a killed writer's); returns
            how many. Their parts were never visible as an object, but they take space until aborted."""
            client = self.connection.meta.client
            prefix = self._normalize_name("")
            prefix = prefix.rstrip("/") + "/" if prefix else ""
            cutoff = datetime.now(UTC).timestamp() - older_than_s
            aborted = 0
            for page in client.get_paginator("list_multipart_uploads").paginate(Bucket=self.bucket.name, Prefix=prefix):
                for up in page.get("Uploads", []):
                    if up["Initiated"].timestamp() < cutoff:
                        client.abort_multipart_upload(Bucket=self.bucket.name, Key=up["Key"], UploadId=up["UploadId"])
                        aborted += 1
            return aborted

        def open_stream(self, name: str) -> IO[bytes]:
            key = self._normalize_name(clean_name(name))
            try:
                return self.bucket.Object(key).get()["Body"]
            except self.connection.meta.client.exceptions.NoSuchKey:
                raise FileNotFoundError(name) from None

        def all_names(self) -> list[str]:
            prefix = self._normalize_name("")
            prefix = prefix.rstrip("/") + "/" if prefix else ""
            return [obj.key[len(prefix) :] for obj in self.bucket.objects.filter(Prefix=prefix)]

        def stale_partials(self, older_than_s: float) -> list[str]:
            return []  # incomplete uploads are invisible (and expire by the bucket's lifecycle rule)

    return _S3ArtifactStorage


def __getattr__(name: str) -> type[Storage]:
    if name == "S3ArtifactStorage":
        return s3_storage_class()
    raise AttributeError(name)
