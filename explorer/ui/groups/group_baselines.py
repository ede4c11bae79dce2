"""The bag-of-words baseline of a run group in words, for the Groups page (Qt-free): a cross-validation group's
baseline on the same folds (core/studies/cv_baseline.py, oof_baseline.json), and for restarts and grids the
members' own saved comparisons (core/studies/run_baseline.py, each run's baseline_bag_of_words.json) summed up. A
learning curve draws its baseline at every size (explorer.ui.groups.curve_plot_model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["group_baseline_lines"]


def _scale(metric: str) -> tuple[float, int]:
    from explorer.core.specs.metrics import metric_spec

    spec = metric_spec(metric)
    return (spec.scale, 1) if spec.is_percent else (1.0, 3)


def group_baseline_lines(runs_dir: str | Path, group, task: str | None = None) -> list[str]:
    """Lines for the group's page: the cv group's pooled comparison, or for restarts / a grid how the members
    that have a saved comparison fare against the baseline (the baseline's judged figure, the mean difference,
    how many runs are better, tied or worse by their own 95% paired interval); a hint when none has one. [] for
    other kinds and for tasks without a baseline."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.studies.cv_baseline import read_cv_baseline
    from explorer.core.studies.run_baseline import baseline_problem, read_run_baseline

    task = task or str(group.base.get("task", ""))
    if group.kind == "cv":
        data = read_cv_baseline(runs_dir, group.name)
        return (["bag-of-words baseline on the same folds (TF-IDF + linear, against the pooled out-of-fold "
                 "predictions):", *[f"  {line}" for line in data.get("lines", [])]] if data else [])
    if group.kind not in ("restarts", "grid") or baseline_problem(task):
        return []
    saved = [read_run_baseline(Path(runs_dir) / m.run_id) for m in group.members]
    have = [d for d in saved if d and d.get("difference")]
    if not have:
        return [f"bag-of-words baseline: none computed for its {len(saved)} runs (right-click a run in the Runs "
                "list: Compute bag-of-words baseline)"]
    metric = str(have[0]["difference"].get("metric", ""))
    scale, digits = _scale(metric)
    diffs = np.array([scale * d["difference"]["difference"] for d in have])
    base = np.array([scale * d["difference"]["baseline"] for d in have])
    better = sum(d["difference"]["low"] > 0 for d in have)
    worse = sum(d["difference"]["high"] < 0 for d in have)
    label = metric_label(metric, task)
    base_text = (f"{base[0]:.{digits}f}" if np.ptp(base) < 10 ** -digits
                 else f"{base.min():.{digits}f} to {base.max():.{digits}f}")
    return [f"bag-of-words baseline ({len(have)} of {len(saved)} runs compared): {label} {base_text}; fine-tuned - "
            f"baseline mean {diffs.mean():+.{digits}f} (range {diffs.min():+.{digits}f} to {diffs.max():+.{digits}f}); "
            f"by each run's 95% paired interval {better} better, {len(have) - better - worse} tied, {worse} worse"]
