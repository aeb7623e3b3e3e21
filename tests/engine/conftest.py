"""Shared helpers for the engine tests (plain pytest, no Django).

`spec(**overrides)` builds a spec dict from the minimal SuperPOD spec with deep overrides, so a
test states only what it changes:

    spec(servers={"count": 40})                      # keeps model: dgx-h100
    spec(compute_fabric={"tiers": DELETE})           # drops a key

`build(**overrides)` parses that dict and runs the whole engine with the media-free catalog.
Test modules import these helpers (`from tests.engine.conftest import spec, build`); the same
functions are offered as fixtures for tests that prefer them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

# The minimal spec exactly as the docs and the brief write it (YAML text, parsed by each test that needs it).
MINIMAL_YAML = """\
name: SuperPOD 4 SU
servers: {model: dgx-h100, count: 128}
compute_fabric: {technology: infiniband, switch: qm9700, scalable_unit: 32, oversubscription: "1:1", tiers: auto}
"""
MINIMAL: dict = yaml.safe_load(MINIMAL_YAML)


class _Delete:
    """Marker value: remove this key instead of setting it."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()


def deep_merge(base: Mapping, overrides: Mapping) -> dict:
    """A new dict: `base` with `overrides` merged in; nested mappings merge key by key, DELETE drops a key."""
    out = copy.deepcopy(dict(base))
    for key, value in overrides.items():
        if value is DELETE:
            out.pop(key, None)
        elif isinstance(value, Mapping):
            # Merge into the existing section, or into an empty one so DELETE markers never leak out.
            out[key] = deep_merge(out[key] if isinstance(out.get(key), Mapping) else {}, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def spec(**overrides: Any) -> dict:
    """The minimal spec dict with deep `overrides` (see the module docstring)."""
    return deep_merge(MINIMAL, overrides)


def catalog_no_media():
    # load_catalog caches the shipped catalog, so every caller shares one instance.
    return load_catalog(with_media=False)


def build(data: Mapping | None = None, **overrides: Any):
    """Run the engine on `data` (a full spec dict) or on spec(**overrides)."""
    raw = deep_merge(data, overrides) if data is not None else spec(**overrides)
    return compute_design(parse_spec(raw), catalog_no_media())


def compute_summary(result) -> dict:
    return result.summary["networks"]["compute"]


@pytest.fixture(scope="session")
def catalog():
    """The shipped catalog without the physical media catalog (faster; the engine then skips the physical stage)."""
    return catalog_no_media()


@pytest.fixture
def make_spec():
    return spec


@pytest.fixture
def make_design():
    return build
