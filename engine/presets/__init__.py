"""Preset specs shipped with the engine: `list_presets()` and `load_preset(key)`."""
from __future__ import annotations

from pathlib import Path

import yaml

PRESET_DIR = Path(__file__).parent


def list_presets() -> dict[str, str]:
    """{key: design name} for every preset file."""
    out = {}
    for path in sorted(PRESET_DIR.glob("*.yaml")):
        out[path.stem] = yaml.safe_load(path.read_text())["name"]
    return out


def load_preset(key: str) -> dict:
    path = PRESET_DIR / f"{key}.yaml"
    if not path.is_file() or path.parent != PRESET_DIR:
        raise KeyError(key)
    return yaml.safe_load(path.read_text())
