"""Run presets as data: one JSON file per preset under resources/presets/ (torch-free).

A preset file (the model: nanoGPT's ``config/*.py`` and SLEAP's ``training_profiles/*.json``)::

    {"order": 2, "label": "what the launcher's menu says", "why": "where the values come from",
     "start": "current" | "defaults",   # on top of the given config, or of TrainConfig's defaults
     "keep": ["model", ...],            # with "defaults": the fields kept from the given config
     "after": "fast-cpu",               # another preset applied after "start", before "settings" (optional)
     "settings": {"batch_size": 16, ...},   # TrainConfig fields; "$SAMPLES/" = resources/samples/
     "grid": {"batch_size": [16, 32], ...}} # optional: the values a grid search varies

The launcher's preset menu and ``bert-explorer train --preset NAME`` read the same files; on the command
line, flags given explicitly win over the preset, and the preset over ``--config``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import TrainConfig
from explorer.paths import RESOURCES, SAMPLES

PRESETS_DIR = RESOURCES / "presets"
STARTS = ("current", "defaults")
# The offline run that learns to abstain (resources/presets/offline-squad2.json: bundled:minilm on the bundled SQuAD
# 2.0 sample, a third of its questions unanswerable): the way out that the warnings on a model never trained to
# abstain name, as the Launch tab's preset menu and ``bert-explorer train --preset`` call it.
ABSTAIN_PRESET = "offline-squad2"
ABSTAIN_PRESET_HINT = ('the Launch tab\'s "Offline SQuAD 2.0" preset trains one offline in minutes on the bundled '
                       f'SQuAD 2.0 sample (bert-explorer train --preset {ABSTAIN_PRESET})')


@dataclass(frozen=True)
class RunPreset:
    """One preset file. ``name`` is the file's stem ("fast-cpu"); the other fields as in the module docstring."""

    name: str
    label: str
    settings: dict
    start: str = "current"
    keep: tuple[str, ...] = ()
    after: str = ""
    why: str = ""
    order: int = 0
    grid: dict = field(default_factory=dict)

    def apply(self, config: TrainConfig | None = None) -> TrainConfig:
        """This preset on top of ``config`` (None: TrainConfig()). Raises ConfigError for a setting
        TrainConfig does not have or a value of the wrong type (naming the preset file)."""
        config = config or TrainConfig()
        if self.start == "defaults":
            config = TrainConfig(**{name: getattr(config, name) for name in self.keep})
        if self.after:
            config = load_preset(self.after).apply(config)
        values = {k: _expand(v) for k, v in self.settings.items()}
        return TrainConfig.from_dict(dict(config.to_dict(), **values), source=f"preset {self.name}")


def _expand(value):
    """"$SAMPLES/x.json" -> the bundled sample's path; anything else unchanged."""
    if isinstance(value, str) and value.startswith("$SAMPLES/"):
        return str(SAMPLES / value[len("$SAMPLES/"):])
    return value


def _read(path: Path) -> RunPreset:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"preset file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
        raise ConfigError(f"preset file {path} must hold an object with a \"settings\" object")
    known = {f.name for f in dataclasses.fields(RunPreset)} - {"name"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"preset file {path}: unknown key(s) {', '.join(unknown)}")
    if data.get("start", "current") not in STARTS:
        raise ConfigError(f"preset file {path}: start must be one of {', '.join(STARTS)}, got {data['start']!r}")
    data["keep"] = tuple(data.get("keep", ()))
    return RunPreset(name=path.stem, label=str(data.pop("label", path.stem)), **data)


def preset_names(folder: Path = PRESETS_DIR) -> list[str]:
    """The presets in ``folder``, in their ``order``."""
    return [p.name for p in list_presets(folder)]


def list_presets(folder: Path = PRESETS_DIR) -> list[RunPreset]:
    """Every preset file of ``folder``, in (order, name) order."""
    return sorted((_read(p) for p in Path(folder).glob("*.json")), key=lambda p: (p.order, p.name))


def load_preset(name: str, folder: Path = PRESETS_DIR) -> RunPreset:
    """The preset ``name`` ("fast-cpu"; "fast_cpu" too). Raises ConfigError listing the known names."""
    path = Path(folder) / f"{name.replace('_', '-')}.json"
    if not path.is_file():
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(preset_names(folder))}")
    return _read(path)


def fast_cpu_preset(base: TrainConfig) -> TrainConfig:
    """``base`` with the fast-CPU preset (resources/presets/fast-cpu.json: its "why" says where the values
    come from): a 30-minute time budget, batch 16, lr 1e-4, dropout 0, max_seq_length 256, mixed precision "auto"."""
    return load_preset("fast-cpu").apply(base)
