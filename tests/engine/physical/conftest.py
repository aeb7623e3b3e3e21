"""Shared fixtures for the physical-layer tests (plain pytest, no Django)."""

import pytest

from engine.physical import load_media_catalog


@pytest.fixture(scope="session")
def catalog():
    return load_media_catalog()
