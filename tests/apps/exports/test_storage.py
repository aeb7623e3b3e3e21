"""The artifact storages: a file is seen whole or not at all, and a failed write leaves nothing behind.

Both storages are exercised through Django's Storage API, as the artifact store uses them.
"""

from __future__ import annotations

import io
import os

import pytest
from django.core.files import File

from apps.exports.models import StoredChunk
from apps.exports.storage import PARTIAL, AtomicFileSystemStorage, DatabaseStorage

pytestmark = pytest.mark.django_db


class Exploding(io.RawIOBase):
    """A content stream that fails after `good` bytes, like a renderer or a disk dying mid-write."""

    def __init__(self, good: int):
        self.left = good

    def readable(self):
        return True

    def readinto(self, b):
        if self.left <= 0:
            raise OSError("disk gone")
        n = min(len(b), self.left)
        b[:n] = b"x" * n
        self.left -= n
        return n


def storages(tmp_path):
    return [AtomicFileSystemStorage(location=str(tmp_path / "files")), DatabaseStorage(chunk_size=1000)]


@pytest.mark.parametrize("which", [0, 1], ids=["files", "database"])
def test_a_saved_file_reads_back_whole_in_chunks(tmp_path, which):
    storage = storages(tmp_path)[which]
    data = os.urandom(2500)  # three database chunks of 1000

    name = storage.save("7/abc/labels.pdf", File(io.BytesIO(data)))

    assert name == "7/abc/labels.pdf" and storage.exists(name) and storage.size(name) == 2500
    with storage.open(name) as fh:
        assert fh.read(1) + fh.read() == data
    assert storage.listdir("7") == (["abc"], []) and storage.listdir("7/abc") == ([], ["labels.pdf"])
    storage.delete(name)
    assert not storage.exists(name)


def test_the_database_store_streams_a_file_as_its_chunks(tmp_path):
    """A download reads the chunks as the driver returns them; a missing file is known before the answer starts."""
    storage = DatabaseStorage(chunk_size=1000)
    data = os.urandom(2500)
    name = storage.save("7/abc/labels.pdf", File(io.BytesIO(data)))

    blocks = list(storage.iter_chunks(name))

    assert [len(b) for b in blocks] == [1000, 1000, 500] and b"".join(blocks) == data
    with pytest.raises(FileNotFoundError):
        storage.iter_chunks("7/abc/nothing.pdf")
    deleted_meanwhile = storage.iter_chunks(name)
    assert next(deleted_meanwhile) == data[:1000]
    storage.delete(name)
    with pytest.raises(OSError, match="chunk 1 is missing"):
        next(deleted_meanwhile)


@pytest.mark.parametrize("which", [0, 1], ids=["files", "database"])
def test_a_write_that_fails_midway_leaves_no_file_and_keeps_the_previous_one(tmp_path, which):
    storage = storages(tmp_path)[which]
    storage.save("1/k/bom.csv", File(io.BytesIO(b"old")))

    with pytest.raises(OSError, match="disk gone"):
        storage.save("1/k/bom.csv", File(io.BufferedReader(Exploding(1500))))
    with pytest.raises(OSError, match="disk gone"):
        storage.save("1/k/new.csv", File(io.BufferedReader(Exploding(1500))))

    assert storage.open("1/k/bom.csv").read() == b"old"
    assert not storage.exists("1/k/new.csv")
    if which == 0:
        assert sorted(p.name for p in (tmp_path / "files" / "1" / "k").iterdir()) == ["bom.csv"]
    else:
        assert sorted(StoredChunk.objects.values_list("name", flat=True)) == ["1/k/bom.csv"]


def test_without_o_tmpfile_the_fallback_renames_and_hides_a_killed_writers_part_file(tmp_path, monkeypatch):
    storage = AtomicFileSystemStorage(location=str(tmp_path))
    monkeypatch.delattr(os, "O_TMPFILE")
    storage.save("2/k/a.csv", File(io.BytesIO(b"whole")))
    (tmp_path / "2" / "k" / f"b.csv{PARTIAL}dead").write_bytes(b"half")  # what a SIGKILL would leave
    os.utime(tmp_path / "2" / "k" / f"b.csv{PARTIAL}dead", (0, 0))

    assert storage.open("2/k/a.csv").read() == b"whole"
    assert storage.listdir("2/k") == ([], ["a.csv"])
    assert storage.all_names() == ["2/k/a.csv"]
    assert storage.stale_partials(3600) == [f"2/k/b.csv{PARTIAL}dead"]
