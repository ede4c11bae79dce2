"""Launcher presets: the preset files of resources/presets (offline default, offline SQuAD 2.0, fast CPU, paper
recipe, hub data sets; read by explorer.core.specs.run_presets, as ``bert-explorer train --preset`` does), one
preset per fine-tuned QA checkpoint, and the command line a config corresponds to (Qt-free)."""

from __future__ import annotations

import dataclasses
import functools
import shlex
from pathlib import Path

from explorer.core.errors import ConfigError
from explorer.core.specs.hub_checkpoints import QA_PRESETS, preset_for
from explorer.core.specs.tasks import get_task_facts
from explorer.core.specs.run_presets import ABSTAIN_PRESET, fast_cpu_preset, list_presets, load_preset
from explorer.core.specs.train_config import TrainConfig
from explorer.paths import SAMPLES

def _preset_label(p) -> str:
    return f"{p.label} · QA checkpoint · {'SQuAD v2.0' if get_task_facts(p.task).has_no_answer else 'SQuAD v1.1'} from the hub"


# (key, label): the preset files of resources/presets (core/specs/run_presets.py), then one per fine-tuned QA
# checkpoint of explorer.core.specs.hub_checkpoints ("qa:<hub id>")
PRESETS = tuple((p.name, p.label) for p in list_presets()) + tuple((f"qa:{p.hub_id}", _preset_label(p))
                                                                    for p in QA_PRESETS)
# hover text: where a preset's values come from; the QA checkpoints: the dev figure their model cards report
PRESET_TIPS = {p.name: p.why for p in list_presets() if p.why} | {f"qa:{p.hub_id}": p.tooltip() for p in QA_PRESETS}
DEFAULT_WATCH = list(load_preset("offline").settings["watch"])


def sample_paths(version: str = "v2") -> tuple[str, str]:
    """(train, dev) of a bundled SQuAD sample: "v2" (a third unanswerable) or "v1" (answerable only)."""
    train, dev = SAMPLES / f"squad_{version}_sample_train.json", SAMPLES / f"squad_{version}_sample_dev.json"
    if train.is_file() and dev.is_file():
        return str(train), str(dev)
    whole = str(SAMPLES / "squad_v2_sample.json")
    return whole, whole


def offline_default(runs_dir: str | Path) -> TrainConfig:
    """The ready-to-launch first run (resources/presets/offline.json, its "why" says why): bundled:minilm
    on the answerable (SQuAD v1.1-style) sample with the fast-CPU recipe, 4 epochs of batch 4, an
    evaluation per epoch: about 8 minutes on a 2-core CPU."""
    return load_preset("offline").apply(TrainConfig(output_dir=str(runs_dir)))


def preset_config(key: str, current: TrainConfig, runs_dir: str | Path) -> TrainConfig:
    """The config a preset key gives, starting from the form's current config (a preset file's name, or
    "qa:<hub id>" for a fine-tuned QA checkpoint). Raises KeyError for an unknown key."""
    base = dataclasses.replace(current, output_dir=current.output_dir or str(runs_dir))
    if key.startswith("qa:") and preset_for(key[3:]) is not None:  # a fine-tuned QA checkpoint of any family
        p = preset_for(key[3:])
        data = "rajpurkar/squad_v2" if get_task_facts(p.task).has_no_answer else "rajpurkar/squad"
        return TrainConfig(task=p.task, train=data, dev=data, watch=list(DEFAULT_WATCH), eval_every=2000,
                           output_dir=base.output_dir, model=p.hub_id)
    try:
        return load_preset(key).apply(base)
    except ConfigError as exc:
        raise KeyError(str(exc)) from None


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


def intro_text(config: TrainConfig) -> str:
    """The launcher's first-visit line, naming the preset the form holds as :func:`describe_preset` does (the
    line under it), so the two never disagree ("fast-CPU settings" above "Preset: offline default")."""
    named = describe_preset(config)
    preset = named.split(" (")[0].removeprefix("Preset: ") if named.startswith("Preset:") else ""
    if preset == "offline default":
        what = ("This form is the offline default: the bundled encoder learns spans on the bundled sample, in "
                "minutes on a CPU.")
    elif preset == "offline SQuAD 2.0":
        what = ("This form is the offline SQuAD 2.0 preset: the bundled encoder learns spans and when to abstain "
                "on the bundled SQuAD 2.0 sample, in minutes on a CPU; τ on dev set then tunes its threshold.")
    elif preset:
        what = f"This form holds the {preset} preset."
    else:
        what = "This form holds your own settings (no preset)."
    return f"Set up a fine-tune. {what} Hover a field for what it means."


@functools.lru_cache(maxsize=1)
def _abstain_preset() -> TrainConfig:
    """The offline SQuAD 2.0 preset's config, read from its file once (the form's line is described at every edit)."""
    return load_preset(ABSTAIN_PRESET).apply(TrainConfig())


def describe_preset(config: TrainConfig) -> str:
    """Which recipe the form holds, in words: 'Preset: offline default (lr 0.0001, batch 4, 4 epochs,
    max_seq_length 256)', 'Preset: fast CPU (lr 0.0001, batch 16, 30 min (at most 2 epochs), ...)',
    'Preset: paper recipe (...)' or 'Custom settings (...)'.

    A preset is named only when every recipe field (RECIPE_FIELDS) equals its value there: the offline
    default, fast_cpu_preset, or the TrainConfig defaults (the paper recipe, BERT Appendix A.3); the offline
    SQuAD 2.0 preset (resources/presets/offline-squad2.json) when its task, squad_v2, is the form's too."""
    named = (("paper recipe", TrainConfig(task=config.task), RECIPE_FIELDS),
             ("offline SQuAD 2.0", _abstain_preset(), ("task", *RECIPE_FIELDS)),
             ("offline default", offline_default(config.output_dir or "."), RECIPE_FIELDS),
             ("fast CPU", fast_cpu_preset(TrainConfig(task=config.task)), RECIPE_FIELDS))
    for name, preset, fields in named:
        if all(getattr(config, f) == getattr(preset, f) for f in fields):
            return f"Preset: {name} ({_recipe_text(config)})"
    return f"Custom settings ({_recipe_text(config)})"
