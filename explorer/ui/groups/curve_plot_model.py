"""What the Groups page draws for a learning curve group, decided without Qt: the judged metric against the
training rows on a log2 axis, each size's 95% interval as an error bar, the TF-IDF baseline beside it, the fitted
curve c - a n^(-b) and the next doubling with its interval (from curve_result.json, written by
explorer.core.studies.curve_results.collect_curve). explorer.ui.groups.curve_plot draws it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["BASELINE_SHIFT", "CurvePoints", "CurveShown", "LearningCurvePlot", "curve_shown", "learning_curve_plot"]

# the baseline's points sit this far right of the fine-tune's (in log2 rows) so that the error bars do not overlap
BASELINE_SHIFT = 0.06
FIT_POINTS = 60   # points of the drawn fitted curve


@dataclass(frozen=True, kw_only=True)
class CurvePoints:
    """Figures with intervals: ``rows`` (training rows), ``x`` (log2 of the rows, shifted for the baseline),
    ``value``, ``low``, ``high`` (the metric on the display scale); arrays of one length."""

    rows: np.ndarray
    x: np.ndarray
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def __len__(self) -> int:
        return len(self.x)


def _points(rows, figures, scale: float, shift: float = 0.0) -> CurvePoints:
    rows = np.asarray(rows, dtype=float)
    return CurvePoints(rows=rows, x=np.log2(rows) + shift if len(rows) else np.empty(0),
                       value=np.array([scale * f["value"] for f in figures], dtype=float),
                       low=np.array([scale * f["low"] for f in figures], dtype=float),
                       high=np.array([scale * f["high"] for f in figures], dtype=float))


@dataclass(kw_only=True)
class LearningCurvePlot:
    """What the learning-curve plot shows. ``title``; ``y_label`` (the judged metric, with its unit);
    ``model`` / ``baseline``: each scored size (CurvePoints); ``fit_x`` / ``fit_y``: the fitted curve from the
    smallest size to the next doubling (empty without a fit); ``next`` / ``baseline_next``: the next doubling's
    prediction with its interval (None without a fit); ``x_ticks``: (log2 rows, "rows") for the axis; ``notes``:
    why something is missing (no fit, sizes not scored)."""

    title: str
    y_label: str
    model: CurvePoints
    baseline: CurvePoints
    fit_x: np.ndarray = field(default_factory=lambda: np.empty(0))
    fit_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    next: CurvePoints | None = None
    baseline_next: CurvePoints | None = None
    x_ticks: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def y_range(self) -> tuple[float, float] | None:
        """(low, high) over every drawn value and interval, 5% padded; None when nothing is drawn."""
        parts = [self.model.low, self.model.high, self.baseline.low, self.baseline.high, self.fit_y]
        parts += [p.low for p in (self.next, self.baseline_next) if p is not None]
        parts += [p.high for p in (self.next, self.baseline_next) if p is not None]
        values = np.concatenate([np.asarray(p, dtype=float) for p in parts])
        values = values[np.isfinite(values)]
        if not len(values):
            return None
        lo, hi = float(values.min()), float(values.max())
        pad = max((hi - lo) * 0.05, 1e-3)
        return lo - pad, hi + pad


def _next(fit: dict | None, scale: float, shift: float = 0.0) -> CurvePoints | None:
    if not fit:
        return None
    return _points([fit["next_rows"]], [{"value": fit["prediction"], "low": fit["low"], "high": fit["high"]}],
                   scale, shift)


def learning_curve_plot(data: dict, label: str, scale: float) -> LearningCurvePlot:
    """The plot of a curve_result.json ``data`` (core.studies.curve_results.CurveResult.to_dict). ``label``: the
    judged metric as shown ("F_avg (%)"); ``scale``: what one unit of the metric is shown as (100 for a share
    shown in percent)."""
    from explorer.core.metrics.power_law import inverse_power_law

    scored = [p for p in data.get("points", []) if p.get("model")]
    with_base = [p for p in data.get("points", []) if p.get("baseline")]
    model = _points([p["train_rows"] for p in scored], [p["model"] for p in scored], scale)
    baseline = _points([p["train_rows"] for p in with_base], [p["baseline"] for p in with_base], scale, BASELINE_SHIFT)
    out = LearningCurvePlot(title=f"learning curve of {data.get('group', '')}: {label}<br>on the same "
                                  f"{data.get('n_dev', 0)} dev rows (95% bootstrap intervals)",
                            y_label=label, model=model, baseline=baseline)
    fit = data.get("fit")
    if fit:
        a, b, c = fit["params"]
        first = min(p["train_rows"] for p in scored)
        n = np.logspace(math.log2(first), math.log2(fit["next_rows"]), FIT_POINTS, base=2.0)
        out.fit_x, out.fit_y = np.log2(n), scale * inverse_power_law(n, a, b, c)
        out.next = _next(fit, scale)
    elif data.get("fit_note"):
        out.notes.append(f"no fitted curve: {data['fit_note']}")
    out.baseline_next = _next(data.get("baseline_fit"), scale, BASELINE_SHIFT)
    missing = len(data.get("points", [])) - len(scored)
    if missing:
        out.notes.append(f"{missing} size(s) not scored yet")
    rows = sorted({int(p["train_rows"]) for p in data.get("points", [])} | ({int(fit["next_rows"])} if fit else set()))
    out.x_ticks = [(math.log2(r), f"{r:,}") for r in rows if r > 0]
    return out


@dataclass(kw_only=True)
class CurveShown:
    """A scored learning curve as the Groups page shows it: ``lines`` (its figures in words,
    core.studies.curve_results.curve_lines) and ``plot`` (LearningCurvePlot)."""

    lines: list[str]
    plot: LearningCurvePlot


def curve_shown(runs_dir, name: str, task: str | None) -> CurveShown | None:
    """The curve group ``name``'s figures in words and its plot, from its curve_result.json (None before it is
    written). Reads a file: call it off the GUI thread."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.specs.metrics import metric_spec
    from explorer.core.studies.curve_results import curve_lines, read_curve_result

    data = read_curve_result(runs_dir, name)
    if data is None:
        return None
    spec = metric_spec(data["metric"])
    return CurveShown(lines=curve_lines(runs_dir, name, task),
                      plot=learning_curve_plot(data, metric_label(data["metric"], task),
                                               spec.scale if spec.is_percent else 1.0))
