"""Notes from the engine reach the page without internal file names or source keys (issue 39)."""

from __future__ import annotations

import pytest

from apps.designs.templatetags.fabric import plain


@pytest.mark.parametrize(
    ("note", "shown"),
    [
        (
            "OPN and figures from a third-party research note quoting NVIDIA [S25]",
            "OPN and figures from a third-party research note quoting NVIDIA (see Sources)",
        ),
        (
            "UFM-side module not named by NVIDIA text (parts-beyond-ndr.md section 5): a user-settable default",
            "UFM-side module not named by NVIDIA text: a user-settable default (see Sources)",
        ),
        (
            "the cage the storage vendor chooses (a default QSFP112 flat cage here, docs/data-gaps.md): confirm it",
            "the cage the storage vendor chooses (a default QSFP112 flat cage here): confirm it (see Sources)",
        ),
        ("no reference here", "no reference here"),
    ],
)
def test_a_note_loses_its_file_names_and_source_keys(note, shown):
    assert plain(note) == shown
