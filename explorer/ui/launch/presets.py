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
    ("offline", "Offline default: bundled:minilm learns spans on the bundled answerable sample (fast CPU, 92 questions x 4 epochs)"),
    ("fast_cpu", "Fast CPU settings: a 30-minute budget, batch 16, lr 1e-4 (keep model and data)"),
    ("paper", "Paper recipe (reset the settings, keep model and data)"),
    ("hub_squad2", "bert-base-uncased · SQuAD v2.0 from the hub (rajpurkar/squad_v2)"),
    ("hub_squad1", "bert-base-uncased · SQuAD v1.1 from the hub (rajpurkar/squad)"),
    ("hub_sst2", "bert-base-uncased · SST-2 from the hub (nyu-mll/glue::sst2)"),
    ("hub_mrpc", "bert-base-uncased · MRPC from the hub (nyu-mll/glue::mrpc)"),
) + tuple((f"qa:{p.hub_id}", f"{p.label} · QA checkpoint · {'SQuAD v2.0' if p.task == 'squad_v2' else 'SQuAD v1.1'}"
                                                                 " from the hub") for p in QA_PRESETS)
# hover text of the QA checkpoint presets: the dev figure their model cards report (explorer.core.presets)
PRESET_TIPS = {f"qa:{p.hub_id}": p.tooltip() for p in QA_PRESETS}


def sample_paths(version: str = "v2") -> tuple[str, str]:
    """(train, dev) of a bundled SQuAD sample: "v2" (a third unanswerable) or "v1" (answerable only)."""
    train, dev = SAMPLES / f"squad_{version}_sample_train.json", SAMPLES / f"squad_{version}_sample_dev.json"
    if train.is_file() and dev.is_file():
        return str(train), str(dev)
    whole = str(SAMPLES / "squad_v2_sample.json")
    return whole, whole


def offline_default(runs_dir: str | Path) -> TrainConfig:
    """The ready-to-launch first run: bundled:minilm on the answerable (SQuAD v1.1-style) sample with the
    fast-CPU recipe, 4 epochs of batch 4, an evaluation per epoch: about 8 minutes on a 2-core CPU.

    Why answerable data: on 137 SQuAD 2.0 sample questions (a third unanswerable) a few hundred training
    samples only teach the model to predict "no answer" everywhere (dev F1 flat at the share of
    unanswerable questions); with every question answerable it has to learn spans, and dev F1 rises."""
    train, dev = sample_paths("v1")
    base = TrainConfig(model="bundled:minilm", task="squad_v1", train=train, dev=dev, output_dir=str(runs_dir),
                       watch=list(DEFAULT_WATCH))
    return dataclasses.replace(fast_cpu_preset(base), epochs=4.0, batch_size=4, eval_every=23, time_budget_minutes=0.0)


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


RECIPE_FIELDS = ("learning_rate", "batch_size", "epochs", "max_steps", "time_budget_minutes", "max_seq_length",
                 "warmup_ratio",
                 "weight_decay", "gradient_accumulation_steps", "dropout", "doc_stride", "max_query_length")


def _recipe_text(config: TrainConfig) -> str:
    steps = f"max_steps {config.max_steps}" if config.max_steps else f"{config.epochs:g} epoch" + \
        ("s" if config.epochs != 1 else "")
    if config.time_budget_minutes:
        steps = f"{config.time_budget_minutes:g} min (at most {steps})"
    return (f"lr {config.resolved_learning_rate():g}, batch {config.batch_size}, {steps}, "
            f"max_seq_length {config.resolved_max_seq_length()}")


def describe_preset(config: TrainConfig) -> str:
    """Which recipe the form holds, in words: 'Preset: offline default (lr 0.0001, batch 4, 4 epochs,
    max_seq_length 256)', 'Preset: fast CPU (lr 0.0001, batch 16, 30 min (at most 2 epochs), ...)',
    'Preset: paper recipe (...)' or 'Custom settings (...)'.

    A preset is named only when every recipe field (RECIPE_FIELDS) equals its value there: the offline
    default, fast_cpu_preset, or the TrainConfig defaults (the paper recipe, BERT Appendix A.3)."""
    named = (("paper recipe", TrainConfig(task=config.task)),
             ("offline default", offline_default(config.output_dir or ".")),
             ("fast CPU", fast_cpu_preset(TrainConfig(task=config.task))))
    for name, preset in named:
        if all(getattr(config, f) == getattr(preset, f) for f in RECIPE_FIELDS):
            return f"Preset: {name} ({_recipe_text(config)})"
    return f"Custom settings ({_recipe_text(config)})"
