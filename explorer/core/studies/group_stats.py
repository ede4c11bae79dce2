"""Statistics of a run group (pure numpy): mean curves with a band, the per-run table, grid heat maps.

Inputs are plain :class:`MemberData` rows (one per member run: its varied settings and its curves);
:func:`member_data` builds one from a ``runs.RunRecord``. Conventions:

- sd is the sample standard deviation (ddof=1; 0.0 for a single run), as reported for restarts
  in the fine-tuning literature (e.g. Dodge et al. 2020, "Fine-tuning pretrained language models").
- A band is built on the union of the members' steps; a member counts at a step only inside its own
  first..last logged step (linear interpolation between its points), so a member killed early
  shortens nothing else. ``n`` says how many members count at each step.
- "Best" follows core/specs/best: the metric's own direction (core/specs/metrics: lowest loss), the step-0
  evaluation skipped, a tie keeping the earlier step; the Runs list shows the same value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

BAND_MODES = ("minmax", "sd")


@dataclass
class MemberData:
    """One member run, reduced to what the group views need.

    eval_steps/eval_values: the dev metric (``metric_name``) at each evaluation, (n_evals,) arrays, on the
    display scale of ``explorer.core.specs.metric_display`` (classification shares in percent, as the Runs list and
    the curves show them; SQuAD's are percent already). ``final_metrics`` is on the same scale.
    loss_steps/loss_values: training loss at each logged step, (n_steps,) arrays.
    """

    run_id: str
    status: str
    params: dict = field(default_factory=dict)
    metric_name: str = ""
    task: str = ""
    eval_steps: np.ndarray = field(default_factory=lambda: np.zeros(0))
    eval_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    loss_steps: np.ndarray = field(default_factory=lambda: np.zeros(0))
    loss_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    final_metrics: dict = field(default_factory=dict)   # every finite metric of the last evaluation
    last_eval_step: float | None = None   # the step of the run's last evaluation (None: not known)
    undefined: str = ""   # why the metric has no value at any evaluation after step 0 (constant predictions); ""
    ongoing: bool = False   # the run is still training (or queued): its last evaluation is no final figure
    picked: float | None = None   # the loop's logged pick of checkpoints/best (core/specs/best), display scale
    class_note: object = ""   # an ended run's core.metrics.baselines.ClassNote (one class, classes never predicted)


    @property
    def final(self) -> float:
        """The dev metric of the last evaluation: NaN before the first evaluation, while the run is still
        training (its latest evaluation is no final figure: a group's "final" mean would mix it with the ended
        runs'), and where the last evaluation has no finite value of it (a correlation undefined on constant
        predictions), never an earlier value."""
        if self.ongoing or not len(self.eval_values):
            return math.nan
        if self.last_eval_step is not None and float(self.eval_steps[-1]) != float(self.last_eval_step):
            return math.nan
        return float(self.eval_values[-1])

    @property
    def best(self) -> float:
        """The dev metric of the evaluation ``checkpoints/best`` holds: the run's logged pick where known, else
        core/specs/best's rule (the metric's direction, step 0 skipped); NaN before such an evaluation."""
        from explorer.core.specs.best import best_evaluation

        if self.picked is not None:
            return self.picked
        found = best_evaluation(zip(self.eval_steps.tolist(), self.eval_values.tolist()), metric=self.metric_name)
        return found[1] if found else math.nan


def _series(events: list[dict], kind: str, pick) -> tuple[np.ndarray, np.ndarray]:
    steps, values = [], []
    for e in events:
        if e.get("event") != kind:
            continue
        v = pick(e)
        step = e.get("step")
        if isinstance(v, (int, float)) and isinstance(step, (int, float)) and math.isfinite(v):
            steps.append(float(step))
            values.append(float(v))
    return np.asarray(steps, dtype=float), np.asarray(values, dtype=float)


def member_data(record, params: dict | None = None) -> MemberData:
    """A MemberData from a ``runs.RunRecord``: every eval/step event of the log (a resumed run continues
    its step count). Non-finite values and rows without a step are left out. A run still queued or training
    has no final metrics (``ongoing``): its curve counts, its latest evaluation is not a final figure."""
    from explorer.core.specs.metric_display import display_scale
    from explorer.core.specs.metrics import metric_spec

    events = record.events
    picker = record.summary.metric_name if record.summary else ""   # the metric that picks checkpoints/best
    name = record.summary.listed()[0] if record.summary else ""     # the one the run is listed by (SQuAD 2.0: f1)
    task = record.summary.task if record.summary else ""
    from explorer.core.protocol.events import run_evaluations

    es, ev = _series(run_evaluations(events), "eval", lambda e: (e.get("metrics") or {}).get(name)
                     if isinstance(e.get("metrics"), dict) else None)
    ev = ev * display_scale(name, task)
    ls, lv = _series(events, "step", lambda e: e.get("loss"))
    from explorer.core.runs.status import IN_PROGRESS, LIVE

    ongoing = record.status in LIVE or record.status == IN_PROGRESS
    last = None if ongoing else next((e for e in reversed(run_evaluations(events))
                                      if isinstance(e.get("metrics"), dict)), None)
    finals = {k: float(v) * display_scale(k, task) for k, v in (last or {}).get("metrics", {}).items()
              if metric_spec(k).is_plotted and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}
    last_step = last.get("step") if last is not None and isinstance(last.get("step"), (int, float)) else None
    return MemberData(class_note=_class_note(record, task, ongoing),
                      run_id=record.run_id, status=record.status, params=dict(params or {}), metric_name=name, task=task,
                      eval_steps=es, eval_values=ev, loss_steps=ls, loss_values=lv, final_metrics=finals,
                      last_eval_step=last_step, ongoing=ongoing, picked=_picked_value(events, name, task, picker),
                      undefined=record.summary.metric_undefined if record.summary else "")


def _class_note(record, task: str, ongoing: bool):
    """An ended run's core.metrics.baselines.ClassNote (core.studies.group_classes.run_class_note: its last
    evaluation predicts one class for every dev row, or never predicts some classes); "" while it trains or without
    evaluations."""
    from explorer.core.studies.group_classes import run_class_note

    return "" if ongoing else (run_class_note(record) or "")


def _picked_value(events: list[dict], name: str, task: str, picker: str = "") -> float | None:
    """The ``name`` figure of the evaluation checkpoints/best holds where the run logged its pick
    (core.specs.best.best_of_events), on the display scale; None without a logged pick. A run listed by another
    metric than the ``picker`` that picks its checkpoint (SQuAD 2.0: f1 at τ = 0 of best_f1's pick,
    core.specs.best.listed_best): that metric at the picked step, None where the evaluation lacks it."""
    from explorer.core.specs.best import listed_best, picked_checkpoint
    from explorer.core.specs.metric_display import display_scale

    if name and picker and picker != name:
        listed = listed_best(events, picker)
        value = listed[2] if listed is not None and listed[0] == name else None
    else:
        found = picked_checkpoint(events, name) if name else None
        value = found[1] if found else None
    return value * display_scale(name, task) if value is not None else None


def final_metric_stats(members: list[MemberData]) -> dict[str, Stats]:
    """Stats over the members of every metric of their last evaluation (accuracy, f1, exact_match, ...),
    in the order the metrics first appear; a member without that metric is left out of its n."""
    names: list[str] = []
    for m in members:
        names += [k for k in m.final_metrics if k not in names]
    from explorer.core.specs.metrics import higher_is_better

    return {k: stats((m.final_metrics.get(k) for m in members), higher_is_better(k)) for k in names}


def final_metric_intervals(members: list[MemberData], level: float = 0.95) -> dict:
    """Each final dev metric's mean, sd and Student t interval over the members (restarts or folds):
    name -> core.metrics.significance.MeanInterval, in the order of :func:`final_metric_stats`. The interval of a
    bounded metric is clipped to the values it can take (metric_display.display_range: 0..100 % for a share, -1..1
    for a correlation) and says so: a t interval is symmetric and runs below 0 for a spread-out F1 near 0."""
    from explorer.core.metrics.significance import t_interval
    from explorer.core.specs.metric_display import display_range

    names: list[str] = []
    for m in members:
        names += [k for k in m.final_metrics if k not in names]
    return {k: t_interval((m.final_metrics.get(k) for m in members), level).clipped(*display_range(k)) for k in names}


def welch_lines(members_a: list[MemberData], members_b: list[MemberData], name_a: str = "A",
                name_b: str = "B") -> list[str]:
    """Welch's t test (core.metrics.significance.welch_test) of group B against group A for every final dev metric both
    have, e.g. "accuracy (%): B - A = +1.20 (A 80.10, n 3; B 81.30, n 3), Welch t 2.10, df 3.8, p = 0.11"."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.metrics.significance import fmt_p, welch_test

    task = next((m.task for m in members_a + members_b if m.task), None)
    names: list[str] = []
    for m in members_a + members_b:
        names += [k for k in m.final_metrics if k not in names and k != "total"]
    lines = []
    for k in names:
        r = welch_test([m.final_metrics.get(k) for m in members_a], [m.final_metrics.get(k) for m in members_b])
        if not (r.n_a and r.n_b):
            continue
        head = (f"{metric_label(k, task)}: {name_b} - {name_a} = {r.difference:+.2f} ({name_a} {r.mean_a:.2f}, n {r.n_a}; "
                f"{name_b} {r.mean_b:.2f}, n {r.n_b})")
        if math.isfinite(r.p):
            lines.append(f"{head}, Welch t {r.t:.2f}, df {r.df:.1f}, {fmt_p(r.p)}")
        else:
            lines.append(f"{head}, Welch's test needs at least 2 runs in each group")
    return lines


@dataclass
class Band:
    """A group curve: steps (k,), mean (k,), low (k,), high (k,), n (k,) members counted per step."""

    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    mode: str


def mean_band(curves: list[tuple[np.ndarray, np.ndarray]], mode: str = "minmax") -> Band:
    """The mean of several curves on a common step grid with a band around it.

    Args:
        curves: (steps, values) per member, each (m_i,) with increasing steps; empty ones are skipped.
        mode: "minmax" (low/high = min/max over members) or "sd" (mean -/+ one sample sd).

    Raises:
        ValueError: an unknown mode.
    """
    if mode not in BAND_MODES:
        raise ValueError(f"band mode {mode!r} is not one of {', '.join(BAND_MODES)}")
    curves = [(np.asarray(s, float), np.asarray(v, float)) for s, v in curves if len(s)]
    if not curves:
        empty = np.zeros(0)
        return Band(empty, empty, empty, empty, np.zeros(0, dtype=int), mode)
    grid = np.unique(np.concatenate([s for s, _ in curves]))
    table = np.full((len(curves), len(grid)), np.nan)
    for i, (s, v) in enumerate(curves):
        inside = (grid >= s[0]) & (grid <= s[-1])
        table[i, inside] = np.interp(grid[inside], s, v)
    n = np.sum(np.isfinite(table), axis=0)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(table, axis=0)
        if mode == "minmax":
            low, high = np.nanmin(table, axis=0), np.nanmax(table, axis=0)
        else:
            sd = np.where(n > 1, np.nanstd(table, axis=0, ddof=1) if len(curves) > 1 else 0.0, 0.0)
            low, high = mean - sd, mean + sd
    return Band(grid, mean, low, high, n, mode)


@dataclass
class Stats:
    """mean, sd (sample, ddof=1; 0 for one value), best, worst (max and min; min and max for a
    lower-is-better metric), n of the finite values."""

    mean: float
    sd: float
    best: float
    worst: float
    n: int

    @property
    def has_spread(self) -> bool:
        """Whether an sd means anything: two or more values (one value's sd of 0 would read as certainty)."""
        return self.n >= 2

    def text(self, digits: int = 2) -> str:
        """"82.10 ± 1.35 (best 83.50, worst 80.20, n 3)"; "82.10 (n 1)" for one value (no ±); "-" with none."""
        if not self.n:
            return "-"
        if not self.has_spread:
            return f"{self.mean:.{digits}f} (n {self.n})"
        return (f"{self.mean:.{digits}f} ± {self.sd:.{digits}f} (best {self.best:.{digits}f}, "
                f"worst {self.worst:.{digits}f}, n {self.n})")


def stats(values, higher_is_better: bool = True) -> Stats:
    """Stats of the finite values among ``values`` (NaN for all fields but n when there are none);
    ``higher_is_better`` False: best is the smallest value (loss)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return Stats(math.nan, math.nan, math.nan, math.nan, 0)
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    best, worst = (float(v.max()), float(v.min())) if higher_is_better else (float(v.min()), float(v.max()))
    return Stats(float(v.mean()), sd, best, worst, len(v))


MEMBER_WORDS = {"restarts": "seed", "cv": "fold"}   # what one member of a group kind is, in a headline


def best_headline(name: str, st: Stats, kind: str = "", task: str | None = None) -> str:
    """A group's headline figure, the same text on the Groups page and the Runs list's group row: the mean ± sd of
    each ended member's best dev evaluation (what ``checkpoints/best`` holds and a researcher reports, picked by the
    metric's direction), labelled as such: "best dev F1 74.1 ± 2.3% over 5 seeds"; one member: "best dev F1
    74.10% over 1 seed" (no ± 0, which would read as certainty); "" when no member has one. ``st``: Stats of the
    members' best values on the display scale (:func:`group_table`'s ``best``)."""
    from explorer.core.specs.metric_display import metric_short, value_with_unit

    if not name or not st.n:
        return ""
    word = MEMBER_WORDS.get(kind, "run")
    figure = value_with_unit(name, st.mean, st.sd if st.has_spread else None)
    return f"best dev {metric_short(name)} {figure} over {st.n} {word}{'s' if st.n != 1 else ''}"


@dataclass
class GroupTable:
    """The per-run table: rows (one per member: run_id, status, params..., final, best) and the
    summary of the final and best dev metric over the members; ``label`` names the metric with its display
    scale ("accuracy (%)", "F1 (%)", "matthews_corrcoef")."""

    metric_name: str
    columns: list[str]
    rows: list[dict]
    final: Stats
    best: Stats
    label: str = ""
    undefined: dict = field(default_factory=dict)   # run_id -> why its metric has no value (MemberData.undefined)

    def figure_text(self, which: str) -> str:
        """The "final" or "best" Stats as text; where no member has a value and some have the metric undefined:
        "undefined (the predictions are constant (…))", not a bare "-" as for runs not yet evaluated."""
        st = self.final if which == "final" else self.best
        if st.n or not self.undefined:
            return st.text()
        return f"undefined ({next(iter(self.undefined.values()))})"

    def sorted_by(self, column: str, descending: bool = False) -> list[dict]:
        """The rows sorted by one column (a varied setting, final, best, ...); NaN and missing last.

        Raises KeyError for a column the table does not have."""
        if column not in self.columns:
            raise KeyError(f"no column {column!r}; the table has {', '.join(self.columns)}")

        def key(row):
            v = row.get(column)
            missing = v is None or (isinstance(v, float) and math.isnan(v))
            if missing:
                return (1, 0, "")
            if isinstance(v, (int, float)):
                return (0, -v if descending else v, "")
            return (0, 0, str(v))
        rows = sorted(self.rows, key=key)
        if descending and rows and not isinstance(rows[0].get(column), (int, float)):
            present = [r for r in rows if key(r)[0] == 0][::-1]
            rows = present + [r for r in rows if key(r)[0] == 1]
        return rows


def group_table(members: list[MemberData], varied: list[str]) -> GroupTable:
    """The table of final and best dev metric per member plus their Stats; the columns are run_id,
    status, the varied settings, final, best."""
    rows = []
    for m in members:
        row = {"run_id": m.run_id, "status": m.status}
        row.update({k: m.params.get(k) for k in varied})
        row.update(final=m.final, best=m.best)
        rows.append(row)
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.specs.metrics import higher_is_better

    name = next((m.metric_name for m in members if m.metric_name), "")
    task = next((m.task for m in members if m.task), None)
    up = higher_is_better(name or None)
    return GroupTable(metric_name=name, columns=["run_id", "status", *varied, "final", "best"], rows=rows,
                      final=stats((m.final for m in members), up),
                      best=stats((m.best for m in members if not m.ongoing), up),   # an ended run's best only
                      label=metric_label(name, task) if name else "",
                      undefined={m.run_id: m.undefined for m in members if m.undefined})


@dataclass
class HeatMap:
    """The dev metric over two settings: x_values (nx,), y_values (ny,); mean, sd, low, high (ny, nx)
    over the members at each cell (restarts; NaN where none), n (ny, nx) members counted."""

    x_name: str
    y_name: str
    x_values: list
    y_values: list
    mean: np.ndarray
    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray

    def tooltip(self, iy: int, ix: int, digits: int = 2) -> str:
        """"learning_rate 3e-05, epochs 3.0: 81.20 ± 0.40 (80.80..81.60, n 2)"."""
        head = f"{self.x_name} {self.x_values[ix]}, {self.y_name} {self.y_values[iy]}"
        if not self.n[iy, ix]:
            return f"{head}: no finished evaluation"
        return (f"{head}: {self.mean[iy, ix]:.{digits}f} ± {self.sd[iy, ix]:.{digits}f} "
                f"({self.low[iy, ix]:.{digits}f}..{self.high[iy, ix]:.{digits}f}, n {int(self.n[iy, ix])})")


def heat_map(rows: list[dict], x: str, y: str, value: str = "best") -> HeatMap:
    """Cells = distinct values of settings ``x`` and ``y`` among the rows (sorted); each cell averages
    ``value`` over its rows (every other setting, e.g. the seed and a third grid axis, pooled).

    Raises KeyError when a row lacks ``x`` or ``y``."""
    for r in rows:
        if x not in r or y not in r:
            raise KeyError(f"row {r.get('run_id', '?')} has no setting {x if x not in r else y!r}")
    xs = sorted({r[x] for r in rows}, key=_order)
    ys = sorted({r[y] for r in rows}, key=_order)
    shape = (len(ys), len(xs))
    mean, sd, low, high = (np.full(shape, np.nan) for _ in range(4))
    n = np.zeros(shape, dtype=int)
    for iy, yv in enumerate(ys):
        for ix, xv in enumerate(xs):
            s = stats(r.get(value) for r in rows if r[x] == xv and r[y] == yv)
            mean[iy, ix], sd[iy, ix], low[iy, ix], high[iy, ix], n[iy, ix] = s.mean, s.sd, s.worst, s.best, s.n
    return HeatMap(x, y, xs, ys, mean, sd, low, high, n)


def _order(v):
    return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))


def size_of(member: MemberData) -> str:
    """A learning curve member's size in words: "1600 rows" (its ``train_rows``), else its share of the rows."""
    rows = member.params.get("train_rows")
    if rows:
        return f"{int(rows)} rows"
    fraction = member.params.get("fraction")
    return f"{100 * float(fraction):g}%" if fraction is not None else member.run_id


def per_size_lines(members: list[MemberData], first: str = "") -> list[str]:
    """A learning curve group's final dev figures size by size, one line per metric (``first``, the group's
    metric, leads): "accuracy (%) per size: 400 rows 50.92, 800 rows 54.36, 1600 rows 77.06". Each member
    trains on a different number of rows, so a mean and sd across them would estimate nothing; a size without
    the metric (not evaluated yet) reads "-". ``final_metrics`` are on the display scale already."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.specs.metrics import metric_spec

    names: list[str] = [first] if first else []
    for m in members:
        names += [k for k in m.final_metrics if k not in names and k != "total"]
    task = next((m.task for m in members if m.task), None)
    lines = []
    for name in names:
        cells, digits = [], 2 if metric_spec(name).is_percent else 3
        for m in members:
            v = m.final_metrics.get(name)
            cells.append(f"{size_of(m)} " + (f"{v:.{digits}f}" if v is not None and math.isfinite(v) else "-"))
        lines.append(f"{metric_label(name, task)} per size: {', '.join(cells)}")
    return lines
