"""How fast a model trains on this machine, for the estimates made before a run (Qt- and torch-free): which
past runs count as the same model (the same architecture in config.json: a run's checkpoint folder trains as
fast as the model it was made from), their measured speed, and the built-in rough rate when there are none
(core.runs.throughput's figures)."""

from __future__ import annotations

import statistics
from pathlib import Path

from explorer.core.models.sources import architecture_key
from explorer.core.runs.throughput import DEFAULT_SPS, DEFAULT_SPS_OTHER, SHORT_INPUT_SPEEDUP, Speed


def same_model(a: str, b: str) -> bool:
    """Whether models ``a`` and ``b`` train at the same speed: the same source, or the same architecture
    (core.models.sources.architecture_key: a run's checkpoint folder and the model it started from)."""
    if a == b:
        return True
    return bool(a) and bool(b) and architecture_key(a) == architecture_key(b)


def builtin_rate(model: str, task: str | None = None) -> float:
    """The rough training rows/s of ``model`` on a 2-core CPU with no past run to go by: DEFAULT_SPS's figure for
    it or for a model of its architecture (a checkpoint of the bundled encoder is the bundled encoder), else
    DEFAULT_SPS_OTHER; times SHORT_INPUT_SPEEDUP when ``task``'s examples are one short input each (a text or a
    pair of a table, a tagged sentence) rather than the full-length QA windows the figures were measured on, or
    a context with several endings (None: no task known, the QA figure)."""
    rate = next((rate for known, rate in DEFAULT_SPS.items() if same_model(model, known)), DEFAULT_SPS_OTHER)
    return rate * SHORT_INPUT_SPEEDUP if short_inputs(task) else rate


def short_inputs(task: str | None) -> bool:
    """Whether one example of ``task`` is one short input: a text or a sentence pair, or a tagged sentence
    (core.specs.heads.Inputs TEXT or WORDS), not a question with a passage's windows or a set of choices."""
    from explorer.core.specs.heads import Inputs
    from explorer.core.specs.tasks import head_of_task

    head = head_of_task(task)
    return head is not None and head.inputs in (Inputs.TEXT, Inputs.WORDS)


def measured_speed(runs_dir: str | Path, model: str, task: str | None = None) -> Speed:
    """The median samples/s of the runs under ``runs_dir`` that trained ``model`` or a model of its architecture
    (their config.json's ``model``; :func:`same_model`), else :func:`builtin_rate` of ``model`` on ``task``."""
    from explorer.core.runs.reading import read_config, read_run_events, run_dirs

    values = []
    for path in run_dirs(runs_dir) if Path(runs_dir).is_dir() else []:
        if not same_model(str(read_config(path)[0].get("model") or ""), model):
            continue
        events, _ = read_run_events(path)
        sps = [float(e["samples_per_second"]) for e in events
               if e.get("event") == "step" and isinstance(e.get("samples_per_second"), (int, float))]
        sps = [v for v in sps if v > 0]
        if sps:
            values.append(statistics.median(sps))
    if values:
        return Speed(samples_per_second=float(statistics.median(values)), n_runs=len(values))
    return Speed(samples_per_second=builtin_rate(model, task), n_runs=0)
