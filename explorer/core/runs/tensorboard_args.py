"""The run settings that decide how a run reads, carried in TensorBoard event files (Qt-free).

Scalars alone do not say which metric picked a run's best checkpoint: read back, an export of a run that chose
its best by accuracy would rank itself by F1 (the fallback) and show another Best dev. So the writer stores the
run's config as JSON in a text summary named ``args`` (``args/text_summary``, where Hugging Face's TensorBoard
callback stores its TrainingArguments), and the reader takes back the settings that decide Best dev:
:data:`CARRIED` from our own config, or HF's ``metric_for_best_model`` (``eval_`` prefix dropped).
"""

from __future__ import annotations

import json
from pathlib import Path

ARGS_TAG = "args"                                # add_text tag; stored as "args/text_summary"
ARGS_SUMMARY = ARGS_TAG + "/text_summary"
CARRIED = ("model", "task", "metric_for_best", "f1_classes", "num_labels")   # config keys a reader uses
SCAN_EVENTS = 200   # the args summary is written before the first scalar: look no further into a file


def args_json(config: dict) -> str:
    """The run ``config`` (a TrainConfig dict) as the JSON text the ``args`` summary holds."""
    return json.dumps(config, sort_keys=True, default=str)


def run_config_from_args(text: str) -> dict:
    """The :data:`CARRIED` settings of an ``args`` summary's JSON (ours, or HF TrainingArguments' JSON:
    ``metric_for_best_model`` -> ``metric_for_best``); {} when it is not a JSON object."""
    try:
        args = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(args, dict):
        return {}
    config = {k: args[k] for k in CARRIED if args.get(k) not in (None, "")}
    hf_metric = args.get("metric_for_best_model")
    if "metric_for_best" not in config and isinstance(hf_metric, str) and hf_metric:
        config["metric_for_best"] = hf_metric.removeprefix("eval_")
    return config


def read_run_config(files: list[Path]) -> dict:
    """The settings of the first ``args`` text summary among the first :data:`SCAN_EVENTS` events of each of
    ``files`` (TensorBoard event files), else {}. Needs the tensorboard package (ImportError without it);
    an unreadable file is skipped (its scalars' reader says why)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    for file in files:
        try:
            for n, event in enumerate(EventFileLoader(str(file)).Load()):
                if n >= SCAN_EVENTS:
                    break
                for value in event.summary.value:
                    if value.tag == ARGS_SUMMARY and value.tensor.string_val:
                        return run_config_from_args(value.tensor.string_val[0].decode("utf-8", "replace"))
        except (OSError, ValueError):
            continue
    return {}
