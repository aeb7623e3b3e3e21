"""Where the tests that picture the product put their pictures.

docs/examples/ holds the pages and screenshots the README and docs link to. A test run rewrites them only when
asked (FABRICDESIGN_WRITE_EXAMPLES=1), so that an ordinary run, CI's included, leaves the work tree as it found
it; otherwise they go to a folder of the process's own under the system's temporary folder, where the tests'
checks on them (written, not trivially small) still apply.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DOCS_EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def examples_dir() -> Path:
    """The folder to write example pictures to (made if missing)."""
    if os.environ.get("FABRICDESIGN_WRITE_EXAMPLES") == "1":
        folder = DOCS_EXAMPLES
    else:  # one per process: xdist workers never write over each other's pictures
        folder = Path(tempfile.gettempdir()) / f"fabricdesign-examples-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
