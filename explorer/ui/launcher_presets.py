"""Launcher presets: the offline default run, the fast-CPU and paper settings, hub presets, and the
command line a config corresponds to (Qt-free)."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

from explorer.core.presets import QA_PRESETS, preset_for
from explorer.core.training.config import TrainConfig, fast_cpu_preset
from explorer.paths import SAMPLES

DEFAULT_WATCH = [{"question": "Where was Ada born?", "passage": "Ada Lovelace was born in London in 1815."}]
PRESETS = (
    ("offline", "Offline default: bundled:minilm on the bundled SQuAD 2.0 sample (fast CPU, ~2 min)"),
    ("fast_cpu", "Fast CPU settings (keep model and data)"),
    ("paper", "Paper recipe (reset the settings, keep model and data)"),
    ("hub_squad2", "bert-base-uncased · SQuAD v2.0 from the hub (rajpurkar/squad_v2)"),
    ("hub_squad1", "bert-base-uncased · SQuAD v1.1 from the hub (rajpurkar/squad)"),
    ("hub_sst2", "bert-base-uncased · SST-2 from the hub (nyu-mll/glue::sst2)"),
    ("hub_mrpc", "bert-base-uncased · MRPC from the hub (nyu-mll/glue::mrpc)"),
) + tuple((f"qa:{p.hub_id}", f"{p.label} · QA checkpoint · {'SQuAD v2.0' if p.task == 'squad_v2' else 'SQuAD v1.1'}"
                                                                 " from the hub") for p in QA_PRESETS)
# hover text of the QA checkpoint presets: the dev figure their model cards report (explorer.core.presets)
PRESET_TIPS = {f"qa:{p.hub_id}": p.tooltip() for p in QA_PRESETS}


def sample_paths() -> tuple[str, str]:
    """(train, dev) of the bundled SQuAD 2.0 sample (its train/dev split when present)."""
    train, dev = SAMPLES / "squad_v2_sample_train.json", SAMPLES / "squad_v2_sample_dev.json"
    if train.is_file() and dev.is_file():
        return str(train), str(dev)
    whole = str(SAMPLES / "squad_v2_sample.json")
    return whole, whole


def offline_default(runs_dir: str | Path) -> TrainConfig:
    """The ready-to-launch first run: bundled:minilm on the sample, fast-CPU settings, a few minutes."""
    train, dev = sample_paths()
    base = TrainConfig(model="bundled:minilm", task="squad_v2", train=train, dev=dev, output_dir=str(runs_dir),
                       watch=list(DEFAULT_WATCH))
    return dataclasses.replace(fast_cpu_preset(base), epochs=3.0, batch_size=8, eval_every=10)


def preset_config(key: str, current: TrainConfig, runs_dir: str | Path) -> TrainConfig:
    """The config a preset key gives, starting from the form's current config."""
    keep = dict(model=current.model, task=current.task, train=current.train, dev=current.dev,
                output_dir=current.output_dir or str(runs_dir), watch=current.watch,
                text_columns=current.text_columns, label_column=current.label_column)
    hub = dict(output_dir=current.output_dir or str(runs_dir), model="bert-base-uncased")
    if key == "offline":
        return offline_default(current.output_dir or runs_dir)
    if key == "fast_cpu":
        return fast_cpu_preset(current)
    if key == "paper":
        return TrainConfig(**keep)
    if key == "hub_squad2":
        return TrainConfig(task="squad_v2", train="rajpurkar/squad_v2", dev="rajpurkar/squad_v2",
                           watch=list(DEFAULT_WATCH), eval_every=2000, **hub)
    if key == "hub_squad1":
        return TrainConfig(task="squad_v1", train="rajpurkar/squad", dev="rajpurkar/squad",
                           watch=list(DEFAULT_WATCH), eval_every=2000, **hub)
    if key == "hub_sst2":
        return TrainConfig(task="single", train="nyu-mll/glue::sst2", dev="nyu-mll/glue::sst2", eval_every=1000,
                           **hub)
    if key == "hub_mrpc":
        return TrainConfig(task="pair", train="nyu-mll/glue::mrpc", dev="nyu-mll/glue::mrpc", eval_every=100, **hub)
    if key.startswith("qa:") and preset_for(key[3:]) is not None:  # a fine-tuned QA checkpoint of any family
        p = preset_for(key[3:])
        data = "rajpurkar/squad_v2" if p.task == "squad_v2" else "rajpurkar/squad"
        return TrainConfig(task=p.task, train=data, dev=data, watch=list(DEFAULT_WATCH), eval_every=2000,
                           **dict(hub, model=p.hub_id))
    raise KeyError(f"unknown preset {key!r}")


def command_line(config: TrainConfig) -> str:
    """The shell command that runs this config headless: ``bert-explorer train`` + its flags."""
    return shlex.join(["bert-explorer", "train", *config.to_cli_args()])
