"""The replication capsule's bootstrap intervals: the run's headline dev figures resampled over its dev rows.

A figure such as macro F1, Matthews' correlation, F_avg or Spearman's rho has no closed-form interval; its
interval comes from resampling the dev rows the run was scored on, which the run keeps in
``dev_outputs.json`` (core/runs/dev_outputs.py). Headline figures:

- classification: accuracy, macro F1, Matthews' correlation, and F_avg when the run averages chosen classes'
  F1 (``f1_classes``), each a figure of the confusion matrix (core.classify.compare.CONFUSION_SCORES) with
  core.metrics.intervals.confusion_interval;
- regression: Pearson's r and Spearman's rho (core.metrics.intervals.correlation_interval).

Intervals: 95% paired percentile bootstrap (scipy.stats.bootstrap), RESAMPLES resamples drawn with SEED. The
rows must be the final evaluation's: their count and every recomputed figure must equal the figures the run
recorded, else no interval is given and the note says why (a run still going, or one trained before the rows
were kept). Qt-free, torch-free.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

RESAMPLES = 2_000
SEED = 0
LEVEL = 0.95
CLASS_FIGURES = ("accuracy", "macro_f1", "matthews_corrcoef", "f_avg")
SCORE_FIGURES = ("pearson", "spearman")
SAME = 1e-6     # a recomputed figure within this of the recorded one is the same figure (float rounding)


def headline_intervals(run_dir: str | Path, metrics: dict, n: int, *, f1_classes=(),
                       resamples: int = RESAMPLES, seed: int = SEED) -> tuple[dict, str]:
    """({metric: core.metrics.intervals.FigureInterval}, note) for the headline figures of the run's final
    evaluation. ``metrics``: that evaluation's figures (stored scale); ``n``: its dev rows; ``f1_classes``:
    the class names F_avg averages. The note is "" when every headline figure the run recorded got an
    interval, else it says which did not and why."""
    from explorer.core.runs.dev_outputs import read_dev_outputs

    rows = read_dev_outputs(run_dir)
    if rows is None:
        return {}, "no dev rows kept with the run (dev_outputs.json): bootstrap intervals need them"
    if rows.n != n or rows.n == 0:
        return {}, (f"the dev rows kept with the run ({rows.n}) are not the final evaluation's ({n}): no "
                    "bootstrap intervals")
    if rows.kind == "classes":
        found = _class_intervals(rows, metrics, tuple(f1_classes), resamples, seed)
        wanted = [m for m in CLASS_FIGURES if m in metrics]
    else:
        found = _score_intervals(rows, metrics, resamples, seed)
        wanted = [m for m in SCORE_FIGURES if m in metrics]
    differ = [m for m in wanted if m in found and abs(found[m].value - float(metrics[m])) > SAME]
    kept = {m: iv for m, iv in found.items() if m in wanted and m not in differ}
    missing = [m for m in wanted if m not in kept]
    note = ""
    if differ:
        note = (f"{', '.join(differ)} recomputed from the kept dev rows differ from the recorded figures: the "
                "rows are not the final evaluation's; no interval for them")
    elif missing:
        note = f"no bootstrap interval for {', '.join(missing)} (undefined on these rows)"
    return kept, note


def _class_intervals(rows, metrics: dict, f1_classes: tuple, resamples: int, seed: int) -> dict:
    from explorer.core.classify.compare import CONFUSION_SCORES
    from explorer.core.metrics.intervals import confusion_interval

    logits = np.asarray(rows.logits, dtype=float)
    if logits.ndim != 2 or logits.shape[0] != rows.n:
        return {}
    gold = np.asarray(rows.gold, dtype=np.int64)
    pred = logits.argmax(axis=1)
    k = logits.shape[1]
    names = list(rows.label_names)
    chosen = tuple(names.index(c) for c in f1_classes if c in names)
    out = {}
    for name in CLASS_FIGURES:
        if name not in metrics or (name == "f_avg" and not chosen):
            continue
        score = CONFUSION_SCORES[name]
        out[name] = confusion_interval(lambda conf, s=score: s(conf, chosen), gold, pred, k,
                                       resamples=resamples, seed=seed, level=LEVEL)
    return out


def _score_intervals(rows, metrics: dict, resamples: int, seed: int) -> dict:
    from explorer.core.metrics.intervals import correlation_interval

    gold = np.asarray(rows.gold, dtype=float)
    scores = np.asarray(rows.scores, dtype=float)
    if scores.shape != gold.shape or gold.size < 3:
        return {}
    return {name: correlation_interval(gold, scores, resamples=resamples, seed=seed, level=LEVEL, method=name)
            for name in SCORE_FIGURES if name in metrics and np.isfinite(float(metrics[name]))}


def interval_words(fig: dict, name: str) -> str:
    """" (95% Wilson interval a to b)", " (95% bootstrap interval a to b)", both, or "": a figure's intervals
    as metrics.md prints them."""
    wilson = (fig.get("intervals_95") or {}).get(name)
    boot = (fig.get("bootstrap_95") or {}).get(name)
    words = ([f"95% Wilson interval {wilson[0]} to {wilson[1]}"] if wilson else []) + \
        ([f"95% bootstrap interval {boot['printed'][0]} to {boot['printed'][1]}"] if boot else [])
    return f" ({'; '.join(words)})" if words else ""
