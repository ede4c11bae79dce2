"""A learning curve's figures: each size's dev figure with its interval, the fitted curve, the next doubling,
and the bag-of-words baseline at every size on the same dev rows (Qt-free; torch only to predict).

For each member with a complete ``checkpoints/last`` (not ``best``: picking the checkpoint on the dev rows
would score them with a model chosen on them) the shared dev rows are predicted once (cached in the group
folder, without the run's temperature). The figure is the metric the group's runs are judged by (their
metric_for_best: F_avg, macro F1, accuracy, Matthews ...; Pearson's r for a regression head) with its 95%
paired bootstrap interval (core.metrics.intervals). The baseline (core.studies.baseline) is fitted on the
same subset and scored on the same rows, so each size also has the paired test of the fine-tune against it.
The curve c - a n^(-b) is fitted through the fine-tune's figures, each weighted by its bootstrap standard
error (core.metrics.power_law), and extrapolated to twice the largest size with its interval.
"""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.metrics.intervals import FigureInterval
from explorer.core.predict.watch import watched
from explorer.core.specs.heads import Scores

RESULT_FILE = "curve_result.json"
DEFAULT_RESAMPLES = 2_000


@dataclass(kw_only=True)
class SizePoint:
    """One size of the curve: ``fraction`` of the pool, ``train_rows``, the member ``run_id``, the fine-tune's
    figure (``model``) and the baseline's (``baseline``) with intervals (None: not predicted yet), and
    ``versus``: the judged metric's difference fine-tune - baseline with its interval (and McNemar's p)."""

    fraction: float
    train_rows: int
    run_id: str
    model: FigureInterval | None = None
    baseline: FigureInterval | None = None
    versus: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"fraction": self.fraction, "train_rows": self.train_rows, "run_id": self.run_id,
                "model": self.model.to_dict() if self.model else None,
                "baseline": self.baseline.to_dict() if self.baseline else None, "versus": self.versus}


@dataclass(kw_only=True)
class CurveResult:
    """The figures of a curve group. ``metric``: its name; ``points``: one SizePoint per size; ``fit``: the
    fitted curve and the next doubling ({"params", "next_rows", "prediction", "low", "high"}) or None with
    ``fit_note`` saying why; ``marks``: core.metrics.optimism marks of the dev rows; ``n_dev``: dev rows."""

    group: str
    metric: str
    n_dev: int
    points: list[SizePoint]
    fit: dict | None = None
    fit_note: str = ""
    baseline_fit: dict | None = None
    marks: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"group": self.group, "metric": self.metric, "n_dev": self.n_dev,
                "points": [p.to_dict() for p in self.points], "fit": self.fit, "fit_note": self.fit_note,
                "baseline_fit": self.baseline_fit, "marks": [m.to_dict() for m in self.marks], "notes": self.notes}

    def lines(self, label: str = "", scale: float = 1.0) -> list[str]:
        """The curve in words: one line per size (figure, interval, baseline, the difference), the fit and
        the next doubling, then the marks. ``scale``: what one unit of the metric is shown as (100: points of
        a share, as the label's "(%)" says)."""
        from explorer.core.metrics.optimism import mark_lines

        label = label or self.metric
        d = 1 if scale != 1 else 3
        fig = lambda f: (f"undefined ({f.undefined})" if f.undefined  # noqa: E731 - a correlation of constant outputs
                         else f"{scale * f.value:.{d}f} ({scale * f.low:.{d}f} to {scale * f.high:.{d}f})")
        out = [f"learning curve of {self.group}: {label} on the same {self.n_dev} dev rows (95% bootstrap intervals; "
               "checkpoints/last of each size)"]
        for p in self.points:
            head = f"  {100 * p.fraction:5.1f}% ({p.train_rows:>6} rows) {p.run_id:<20}"
            if p.model is None:
                out.append(f"{head} not predicted yet")
                continue
            line = f"{head} {fig(p.model)}"
            if p.baseline is not None:
                line += f"   bag-of-words {fig(p.baseline)}"
            if p.versus:
                v = p.versus
                line += (f"   fine-tuned - baseline {scale * v['difference']:+.{d}f} ({scale * v['low']:+.{d}f} to "
                         f"{scale * v['high']:+.{d}f}" + (f"; McNemar p {v['mcnemar_p']:.3g}" if "mcnemar_p" in v else "")
                         + ")")
            out.append(line)
        if self.fit:
            f = self.fit
            wide = f["high"] - f["low"] > 0.1
            out.append(f"  fitted curve c - a n^-b (levels off at {scale * f['params'][2]:.{d}f}, b {f['params'][1]:.2f}); at "
                       f"{f['next_rows']} rows (the next doubling): {scale * f['prediction']:.{d}f}, 95% interval "
                       f"{scale * f['low']:.{d}f} to {scale * f['high']:.{d}f} (delta method"
                       + ("; wide: four sizes pin a three-parameter curve down loosely)" if wide else ")"))
        elif self.fit_note:
            out.append(f"  no fitted curve: {self.fit_note}")
        if self.baseline_fit:
            f = self.baseline_fit
            out.append(f"  bag-of-words at {f['next_rows']} rows: {scale * f['prediction']:.{d}f} "
                       f"({scale * f['low']:.{d}f} to {scale * f['high']:.{d}f})")
        return out + mark_lines(self.marks) + [f"  note: {n}" for n in self.notes]


def figure_of(metric: str, gold, outputs: np.ndarray, scores: Scores, chosen: tuple = (), *,
              resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> FigureInterval:
    """The judged figure of one model's dev outputs with its interval: Pearson's r for scores; else
    ``metric`` from the confusion matrix (core.classify.compare.CONFUSION_SCORES; macro F1 for a metric it
    cannot compute there) of argmax(outputs) against the gold class ids."""
    from explorer.core.classify.compare import CONFUSION_SCORES, comparable_metric
    from explorer.core.metrics.intervals import confusion_interval, correlation_interval

    if scores is Scores.SCORE:
        return correlation_interval(gold, outputs, resamples=resamples, seed=seed)
    k = outputs.shape[1]
    name = metric if comparable_metric(metric, k, chosen) else "macro_f1"
    score = CONFUSION_SCORES[name]
    return confusion_interval(lambda conf: score(conf, chosen), gold, outputs.argmax(axis=1), k,
                              resamples=resamples, seed=seed)


def judged_metric(base: dict, head) -> str:
    """The figure the curve shows: Pearson's r for a score head, else the runs' metric_for_best (automatic:
    F_avg once F1 classes are named), macro F1 when that is not a confusion-matrix figure."""
    from explorer.core.classify.compare import CONFUSION_SCORES
    from explorer.core.specs.tasks import automatic_metric_for_best

    if head.scores is Scores.SCORE:
        return "pearson"
    name = str(base.get("metric_for_best") or "") or automatic_metric_for_best(
        str(base.get("task", "")), base.get("f1_classes") or (), int(base.get("num_labels") or 0))
    return name if name in CONFUSION_SCORES else "macro_f1"


def _predict_member(folder: Path, index: int, run_dir: Path, dev: str, predict, batch_size: int) -> Path | None:
    """The member's dev predictions (cached), or None while its run has not finished (a checkpoints/last saved
    mid-run is not the size's model)."""
    from explorer.core.runs.reading import read_summary
    from explorer.core.runs.status import FINISHED
    from explorer.core.studies.learning_curve import predictions_file
    from explorer.core.training.checkpoints import checkpoint_dir

    summary = read_summary(run_dir)
    ckpt = checkpoint_dir(run_dir, "last")
    if ckpt is None or summary is None or summary.status != FINISHED:
        return None
    out = predictions_file(folder, index)
    if out.is_file() and out.stat().st_mtime >= Path(ckpt).stat().st_mtime:
        return out
    if predict is None:
        from explorer.core.predict.engine import predict_file as predict
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.tmp{out.suffix}")   # the app and a group command may predict at once
    predict(str(ckpt), str(dev), str(tmp), batch_size=batch_size, calibration=False)
    os.replace(tmp, out)
    return out


def _fit(points: list[tuple[int, FigureInterval]], ceiling: float) -> tuple[dict | None, str]:
    from explorer.core.metrics.power_law import CurveFitError, fit_power_law

    undefined = [n for n, f in points if f.undefined]   # no value to fit (constant predictions): left out
    points = [(n, f) for n, f in points if not f.undefined]
    if len(points) < 3:
        return None, (f"{len(points)} size(s) scored; the curve needs 3"
                      + (f" (the figure is undefined at {', '.join(map(str, undefined))} rows)" if undefined else ""))
    sizes = [n for n, _ in points]
    try:
        fit = fit_power_law(sizes, [f.value for _, f in points], [f.se for _, f in points], ceiling=ceiling)
    except CurveFitError as exc:
        return None, str(exc)
    nxt = 2 * max(sizes)
    value, low, high = fit.interval(nxt)
    if not all(math.isfinite(x) for x in (value, low, high)):
        return None, "the fit's covariance could not be estimated (the points lie on a flat line?)"
    return {"params": list(fit.params), "next_rows": nxt, "prediction": value, "low": low, "high": high}, ""


def collect_curve(runs_dir: str | Path, group, *, predict=None, batch_size: int = 32,
                  resamples: int = DEFAULT_RESAMPLES, progress=None, cancelled=None) -> CurveResult:
    """Predict each finished member's dev rows (cached), score every size with its interval beside the
    baseline, fit the curve, write curve_result.json in the group folder and return the result.
    ``progress(rows done, rows)``: over every size's dev rows (a size read from the cache counts whole);
    ``cancelled()``: polled between batches, True raises Cancelled (the sizes predicted before stay cached).
    Raises LearningCurveError (no curve.json) and the loaders' data errors."""
    from explorer.core.metrics.optimism import dev_overlap, figure_marks
    from explorer.core.studies.baseline import baseline_outputs, load_rows, model_outputs, versus_model
    from explorer.core.studies.groups import group_dir
    from explorer.core.studies.learning_curve import LearningCurveError, read_curve, subset_file
    from explorer.core.specs.tasks import head_of_task

    folder = group_dir(runs_dir, group.name)
    record = read_curve(folder)
    if record is None:
        raise LearningCurveError(f"group {group.name!r}: no curve.json in {folder}")
    base = dict(group.base)
    head = head_of_task(str(base.get("task", "")))
    regression = head.scores is Scores.SCORE
    pair = _pair(base)
    names = list(record.get("class_names") or [])
    settings = {**base, "encoding": ""} if record.get("dev_held_out") else base
    dev = load_rows(record["dev"], settings, regression=regression, pair=pair, class_names=names)
    gold = np.asarray(dev.labels, dtype=float if regression else np.int64)
    metric = judged_metric(base, head)
    f1 = tuple(c for c in (base.get("f1_classes") or ()) if c in names)
    chosen = tuple(names.index(c) for c in f1)
    result = CurveResult(group=group.name, metric=metric, n_dev=len(dev), points=[])
    train = None
    for i, (member, f) in enumerate(zip(group.members, record["fractions"])):
        point = SizePoint(fraction=f, train_rows=record["sizes"][i], run_id=member.run_id)
        result.points.append(point)
        train = load_rows(str(subset_file(folder, f)), {**base, "encoding": ""}, regression=regression, pair=pair,
                          class_names=names)
        base_out = baseline_outputs(train, dev, head, num_classes=len(names) or None, seed=int(base.get("seed", 0)))
        point.baseline = figure_of(metric, gold, base_out, head.scores, chosen, resamples=resamples)
        rows_before, all_rows = i * len(dev), len(group.members) * len(dev)
        path = _predict_member(folder, i, Path(runs_dir) / member.run_id, record["dev"],
                               watched(predict, progress, cancelled, before=rows_before, size=len(dev),
                                       total=all_rows), batch_size)
        if progress is not None:
            progress(rows_before + len(dev), all_rows)
        if path is None:
            result.notes.append(f"{member.run_id}: not finished (or no checkpoints/last); size {100 * f:g}% not scored")
            continue
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        out = model_outputs(rows, head, names)
        point.model = figure_of(metric, gold, out, head.scores, chosen, resamples=resamples)
        verdict = versus_model(gold, base_out, out, head, class_names=names, f1_classes=f1, metric=metric,
                               resamples=resamples, source=str(record["dev"]))
        point.versus = verdict.difference
    scored = [(p.train_rows, p.model) for p in result.points if p.model is not None]
    result.fit, result.fit_note = _fit(scored, 1.0)
    result.baseline_fit, _ = _fit([(p.train_rows, p.baseline) for p in result.points if p.baseline], 1.0)
    if train is not None:
        texts = lambda d: list(zip(d.texts_a, d.texts_b)) if d.texts_b is not None else list(d.texts_a)  # noqa: E731
        support = None if regression else {n: int((gold == k).sum()) for k, n in enumerate(names)}
        result.marks = figure_marks(class_support=support, overlap=dev_overlap(texts(train), texts(dev)))
    (folder / RESULT_FILE).write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
    return result


def _pair(base: dict) -> bool:
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(str(base.get("task", "")))
    return bool(facts and facts.pair)


def read_curve_result(runs_dir: str | Path, name: str) -> dict | None:
    """curve_result.json of a curve group (what :func:`collect_curve` wrote), or None."""
    from explorer.core.studies.groups import group_dir

    path = group_dir(runs_dir, name) / RESULT_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None


def curve_lines(runs_dir: str | Path, name: str, task: str | None = None) -> list[str]:
    """The curve's figures in words as :func:`collect_curve` last wrote them (curve_result.json), for the CLI's
    group summary and the Groups page; one line saying so when they are not there yet."""
    from explorer.core.metrics.optimism import OptimismMark
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.specs.metrics import metric_spec

    data = read_curve_result(runs_dir, name)
    if data is None:
        return ["learning curve: not scored yet (scored once every size's run has finished)"]

    def fig(d):   # an undefined figure was saved with null numbers (strict JSON)
        return FigureInterval(**{k: math.nan if v is None else v for k, v in d.items()}) if d else None

    result = CurveResult(group=data["group"], metric=data["metric"], n_dev=data["n_dev"],
                         points=[SizePoint(fraction=p["fraction"], train_rows=p["train_rows"], run_id=p["run_id"],
                                           model=fig(p["model"]), baseline=fig(p["baseline"]), versus=p["versus"])
                                 for p in data["points"]],
                         fit=data.get("fit"), fit_note=data.get("fit_note", ""), baseline_fit=data.get("baseline_fit"),
                         marks=[OptimismMark(**m) for m in data.get("marks", [])], notes=data.get("notes", []))
    spec = metric_spec(result.metric)
    return result.lines(metric_label(result.metric, task), spec.scale if spec.is_percent else 1.0)
