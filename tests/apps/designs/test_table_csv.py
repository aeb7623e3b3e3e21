"""One CSV format per file however it is fetched: links.csv and cables.csv downloaded from a stored revision (API,
browser) are byte for byte the files the CLI writes for the same spec (public ids L000001 / C000001, the engine's
column names such as run_length_m and polarity, floats as Python prints them). On PostgreSQL the server writes
them with COPY, elsewhere csv.writer does: the test runs on both in CI."""

from __future__ import annotations

import pytest

from apps.designs.services import design_create
from engine.catalog import load_catalog
from engine.outputs import write_plan
from engine.pipeline import compute_design
from engine.presets import load_preset
from engine.spec import parse_spec

from .test_views import TINY, compute_now, url


def cli_files(spec: dict, tmp_path) -> dict[str, bytes]:
    out = tmp_path / "cli"
    write_plan(compute_design(parse_spec(spec), load_catalog()), out)
    return {name: (out / name).read_bytes() for name in ("links.csv", "cables.csv")}


@pytest.mark.parametrize("spec", [TINY, load_preset("gb200-nvl72-1su")], ids=["tiny", "gb200-nvl72-1su"])
def test_downloads_are_the_clis_files(client, users, tmp_path, spec):
    design = design_create(user=users.alice, spec=spec)
    revision = compute_now(design, users.alice)
    client.force_login(users.alice)
    base = f"/api/v1/designs/{design.pk}/revisions/{revision.number}/downloads/"

    expected = cli_files(revision.spec, tmp_path)

    for name in ("links.csv", "cables.csv"):
        got = b"".join(client.get(base + name).streaming_content)
        assert got.splitlines()[0] == expected[name].splitlines()[0]
        differ = [(a, b) for a, b in zip(got.decode().splitlines(), expected[name].decode().splitlines()) if a != b]
        assert not differ, f"{name} differs from the CLI's, first: {differ[:2]}"
        assert got == expected[name]


def test_a_filtered_table_csv_has_the_same_columns_and_rows(client, users, tmp_path):
    design = design_create(user=users.alice, spec=TINY)
    revision = compute_now(design, users.alice)
    client.force_login(users.alice)
    whole = cli_files(revision.spec, tmp_path)["links.csv"].decode().splitlines()

    got = (
        b"".join(client.get(url("links_csv", design.pk, revision.number, tier="leaf-spine")).streaming_content)
        .decode()
        .splitlines()
    )

    assert got[0] == whole[0]
    assert got[1:] == [line for line in whole[1:] if ",leaf-spine," in line]
    assert got[1].startswith("L0")


TWO_HALLS = {  # tests/engine/test_site_halls.py's design: pod 2 opens hall 2, spine-core links cross
    "name": "two halls",
    "servers": {"model": "dgx-h100", "count": 256},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32, "tiers": 3},
    "site": {"max_racks_per_hall": 50},
}


def test_over_several_halls_the_downloads_are_the_clis_files_with_each_end_s_hall(client, users, tmp_path):
    """Over several halls the CLI's links.csv and cables.csv (engine.outputs) end with a_hall and b_hall; the stored
    revision's downloads, whole or filtered, are the same files."""
    design = design_create(user=users.alice, spec=TWO_HALLS)
    revision = compute_now(design, users.alice)
    client.force_login(users.alice)
    expected = cli_files(revision.spec, tmp_path)
    base = f"/api/v1/designs/{design.pk}/revisions/{revision.number}/downloads/"
    for name in ("links.csv", "cables.csv"):
        got = b"".join(client.get(base + name).streaming_content)
        header = got.decode().splitlines()[0]
        assert header.endswith(",a_hall,b_hall"), name
        assert got == expected[name], name

    spine_core = (
        b"".join(client.get(url("links_csv", design.pk, revision.number, tier="spine-core")).streaming_content)
        .decode()
        .splitlines()
    )
    whole = expected["links.csv"].decode().splitlines()
    assert spine_core[0] == whole[0]
    assert spine_core[1:] == [line for line in whole[1:] if ",spine-core," in line]
    assert any(line.endswith(",2,1") or line.endswith(",1,2") for line in spine_core[1:])  # the links that cross
