"""Shared fabrics for the traffic tests (plain data, no Django)."""

from __future__ import annotations

import pytest

from tests.engine.traffic.fabrics import h100


@pytest.fixture
def fabric_512():
    """512 GPUs = 64 DGX in 2 SUs of 32, non-blocking 2-tier."""
    return h100(512)


@pytest.fixture
def fabric_32k():
    """32,768 GPUs in pods of 16 SUs (4,096 GPUs), non-blocking 3-tier: room for every preset."""
    return h100(32768, pod_sus=16)
