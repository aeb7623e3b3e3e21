"""Preset specs shipped with the engine: `list_presets()`, `preset_descriptions()` and `load_preset(key)`."""

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


def preset_descriptions() -> dict[str, str]:
    """{key: the preset's description} (what it is and which reference it follows)."""
    return {
        path.stem: yaml.safe_load(path.read_text()).get("description") or ""
        for path in sorted(PRESET_DIR.glob("*.yaml"))
    }


# The preset a new design starts from unless another is picked: NVIDIA's most cited reference architecture.
DEFAULT_PRESET = "dgx-h100-superpod-4su"


def load_preset(key: str) -> dict:
    path = PRESET_DIR / f"{key}.yaml"
    if not path.is_file() or path.parent != PRESET_DIR:
        raise KeyError(key)
    return yaml.safe_load(path.read_text())
