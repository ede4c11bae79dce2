"""What the Curves page shows, decided without Qt: the runs and their colours, which series get a plot and in
which order, the x range every plot shows, which plots a refresh must redraw, each plot's note and baselines, the
legend's entries and the progress line. explorer.ui.curves.panel.CurvesPanel shows it.

Which series get a plot is the metric table's (core/specs/metrics): the rows drawn by default are plotted (their
plots built at start-up, hidden until a run has them); any other scalar a run reports (dev metric or step field)
is drawn when its row says so or it has no row, and is one click away in the "Dev metrics" menu otherwise.
"""

from __future__ import annotations

import html

from explorer.core.specs.metric_display import to_display
from explorer.core.specs.metrics import drawn_by_default, metric_spec, sort_key
from explorer.core.runs.x_units import XAxis, axis_for
from explorer.ui.runs.evaluating import evaluation_bar
from explorer.ui.runs.eval_rows import mixed_rows_note
from explorer.ui.runs.stopping import waiting_text
from explorer.ui.runs.state import DEV_PREFIX, TRAIN_SERIES, RunState, progress_parts, series_name, undefined_best_text
from explorer.ui.runs.step_zero import untrained_note

__all__ = ["CurvesModel", "FIRST_SERIES", "NO_RUN_LEGEND", "PALETTE", "series_sort_key"]

# Readable on white, distinguishable for common colour-vision deficiencies (Okabe-Ito + extras).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F3C8D",
           "#3B3B3B", "#B8860B", "#8C564B"]
NO_RUN_LEGEND = ("<span style='color:#666'>No run selected. Launch a run, or select runs in the Runs list "
                 "(Ctrl/Shift-click to overlay several).</span>")

# The plot order, decided here only: training loss, then the shown runs' main dev metric (the one that picks
# their best checkpoint: TaskFacts through RunState.primary_metric), so that the first row answers "is it
# learning, and is dev F1 going up?" (at 1280x800 a dev F1 in a later row is below the fold); then the other dev
# metrics, then the optimiser's plots (learning rate, gradient norm, samples/s), then any other step scalar.
# Dev metrics and other scalars go in the metric table's order (core/metric_specs.sort_key).
FIRST_SERIES = ("loss",)


def series_sort_key(key: str, main_metrics: set[str] | frozenset = frozenset()) -> tuple:
    """Where the plot of series ``key`` ('loss', 'dev/f1', 'loss_scale') goes among the Curves plots (a sort
    key, smaller first). ``main_metrics``: the dev metric names that rank the shown runs (first after the loss)."""
    if key in FIRST_SERIES:
        return (0, FIRST_SERIES.index(key), 0, key)
    if key.startswith(DEV_PREFIX):
        name = series_name(key)
        return (1 if name in main_metrics else 2, *sort_key(name), key)
    if key in TRAIN_SERIES:
        return (3, TRAIN_SERIES.index(key), 0, key)
    return (4, *sort_key(series_name(key)), key)


class CurvesModel:
    """The Curves page's state and decisions.

    ``runs``: the shown RunStates, in order; ``colors``: run id -> colour (PALETTE, in the order runs are first
    shown); ``shown``: series keys chosen for a plot; ``x_follow``: the x range follows the data (False after
    the user panned or zoomed); ``dirty``: run id -> series keys with new points (None = all) since the last
    collect; ``pending``: plot key -> run ids to redraw (refreshed one per event-loop turn); ``x_target``: the x
    range the pending refreshes show; ``name_of(run_id)``: the name the Runs list shows; ``x_unit``: what the x
    axis should count (explorer.core.runs.x_units: "step", "epoch", "examples"), :meth:`x_axis` what it counts.
    """

    def __init__(self):
        self.runs: list[RunState] = []
        self.colors: dict[str, str] = {}
        self.shown: set[str] = {DEV_PREFIX + m for m in drawn_by_default()}
        self._decided: set[str] = set(self.shown)   # keys whose plot was chosen (by the table or the user)
        self._user_chose: set[str] = set()   # keys the user ticked or unticked under Dev metrics
        self._ranked: set[str] = set()   # keys seen as the metric that picks a shown run's best checkpoint
        self.x_follow = True
        self.dirty: dict[str, set | None] = {}
        self.pending: dict[str, set] = {}
        self.x_target: tuple[float, float] | None = None
        self._planned_end: float | None = None   # x axis end of the live runs (axis_end)
        self.name_of = lambda run_id: run_id
        self.x_unit = "step"

    # ---- runs ------------------------------------------------------------------------------
    def set_runs(self, states: list[RunState]) -> bool:
        """Show exactly these runs (in this order); returns whether other runs are shown now."""
        changed = [s.run_id for s in states] != [s.run_id for s in self.runs]
        self.runs = list(states)
        return changed

    def color(self, run_id: str) -> str:
        """The run's colour: the next PALETTE colour the first time it is asked for, the same one after."""
        if run_id not in self.colors:
            self.colors[run_id] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[run_id]

    def pairs(self) -> list[tuple[RunState, str]]:
        """(state, colour) of each shown run."""
        return [(s, self.color(s.run_id)) for s in self.runs]

    def shows(self, run_id: str) -> bool:
        return any(s.run_id == run_id for s in self.runs)

    # ---- which plots ---------------------------------------------------------------------------
    def reported_keys(self) -> set[str]:
        """Every series key a shown run has beyond the fixed training plots; a key seen for the first time is
        chosen when the metric table draws it by default (a name without a row: drawn) or it ranks a run."""
        have = {k for s in self.runs for k in s.series if k not in TRAIN_SERIES}
        primary = {DEV_PREFIX + m for m in self.main_metrics()}   # each run's best-by metric
        for key in have - self._decided:
            self._decided.add(key)
            if metric_spec(series_name(key)).drawn_by_default or key in primary:
                self.shown.add(key)
        for key in (primary & have) - self._ranked:   # a metric that picks a shown run's best is drawn (also when
            self._ranked.add(key)                      # another run showed it first), unless the user chose
            if key not in self._user_chose:
                self.shown.add(key)
        return have

    def visible_keys(self) -> list[str]:
        """Train plots always; any other series (dev metric or step scalar) when it is chosen and a shown run
        has it; in plot order (series_sort_key)."""
        keys = set(TRAIN_SERIES) | {k for k in self.reported_keys() if k in self.shown}
        main = self.main_metrics()
        return sorted(keys, key=lambda k: series_sort_key(k, main))

    def main_metrics(self) -> set[str]:
        """The dev metric names that pick the shown runs' best checkpoints (RunState.best_by_metric: another tool's
        declared one, a Trainer folder's eval_loss; else explorer.core.specs.tasks.choose_metric): F1 for QA,
        accuracy or macro F1 for classification, ..."""
        return {m for m in (s.best_by_metric() for s in self.runs) if m}

    def menu_keys(self) -> list[str]:
        """The "Dev metrics" menu's series: what the shown runs report (a classification run's menu lists no SQuAD
        or regression metric); the metric table's defaults while no run is shown."""
        return sorted(self.reported_keys() or {DEV_PREFIX + m for m in drawn_by_default()},
                      key=lambda k: series_sort_key(k, self.main_metrics()))

    def show(self, key: str, on: bool = True) -> None:
        """Plot (or stop plotting) the series ``key`` ('dev/f1', or a step scalar such as 'loss_scale')."""
        self._decided.add(key)
        self._user_chose.add(key)
        (self.shown.add if on else self.shown.discard)(key)

    # ---- what a refresh redraws ----------------------------------------------------------------
    def mark(self, run_id: str, changed: set | None = None) -> None:
        """Run ``run_id`` has new points in the series ``changed`` (None = all of them)."""
        if changed is None or self.dirty.get(run_id, ()) is None:
            self.dirty[run_id] = None
        else:
            self.dirty.setdefault(run_id, set()).update(changed)

    def mark_all(self) -> None:
        """Every shown run's curves are redrawn (another zoom, outlier or log choice, other plots)."""
        self.dirty.update({s.run_id: None for s in self.runs})

    def mark_smoothing(self) -> None:
        """The smoothing changed: every shown run's loss is redrawn."""
        for s in self.runs:
            d = self.dirty.get(s.run_id, set())
            self.dirty[s.run_id] = None if d is None else d | {"loss"}

    def collect(self, layout_keys: list[str], newly: set[str], last_n: int) -> None:
        """Turn the dirty runs into pending plot refreshes (``layout_keys``: the laid-out plots; ``newly``: those
        just laid out, redrawn whole) and fix the x range they will show (every plot when it moved)."""
        dirty, self.dirty = self.dirty, {}
        target = self.target_x(last_n)
        x_moved = target != self.x_target
        self.x_target = target
        for key in layout_keys:
            runs = {s.run_id for s in self.runs
                    if key in newly or dirty.get(s.run_id, set()) is None or key in dirty.get(s.run_id, set())}
            if runs or x_moved or key in newly:
                self.pending.setdefault(key, set()).update(runs)

    def next_refresh(self, key: str | None = None) -> tuple[str, set]:
        """(plot key, run ids) of the next pending refresh (of ``key`` when given), taken off the queue."""
        key = key if key is not None else next(iter(self.pending))
        return key, self.pending.pop(key)

    # ---- the x range -----------------------------------------------------------------------------
    def x_axis(self) -> XAxis:
        """What the x axis counts for the shown runs (the chosen unit, or steps with a note when a run lacks
        what it needs) and each run's factor from its steps (explorer.core.runs.x_units.axis_for)."""
        return axis_for(self.runs, self.x_unit, self.name_of)

    def set_x_unit(self, unit: str) -> bool:
        """Count the x axis in ``unit``; returns whether that changed (every curve is then redrawn, the x range
        follows the data again)."""
        if unit == self.x_unit:
            return False
        self.x_unit = unit
        self.x_follow = True
        self.x_target = None
        self._planned_end = None
        self.mark_all()
        return True

    def data_x_range(self) -> tuple[float, float] | None:
        """(first, last) x over every series of the shown runs, in the x axis' unit."""
        axis = self.x_axis()
        f = axis.factor
        lo = min((ser.x[0] * f(s.run_id) for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        hi = max((ser.x[-1] * f(s.run_id) for s in self.runs for ser in s.series.values() if len(ser)), default=None)
        if lo is None:
            return None
        return (float(lo), float(hi)) if hi > lo else (float(lo) - 1.0, float(hi) + 1.0)

    def target_x(self, last_n: int) -> tuple[float, float] | None:
        """The x range all plots show: the last ``last_n`` steps (0 = all; in another unit, the last ``last_n``
        steps of the run with the largest factor), else (while following) the data extended to steps_total of the
        live runs; None when the user has panned or zoomed."""
        data = self.data_x_range()
        f = self.x_axis().factor
        if data is not None and last_n > 0:
            return (max(data[0], data[1] - last_n * max(f(s.run_id) for s in self.runs)), data[1])
        if not self.x_follow:
            return None
        planned = self.axis_end(max((float(s.steps_total) * f(s.run_id) for s in self.runs
                                     if s.is_live and s.steps_total), default=None))
        if data is None:
            return (0.0, planned) if planned else None
        hi = max(data[1], planned or data[1])
        return (min(data[0], 0.0) if planned else data[0], hi)

    def axis_end(self, planned: float | None) -> float | None:
        """The x axis end for the live runs' steps_total. A time-budgeted run re-estimates steps_total
        with every step: the end moves only when that passes it (then with 2% to spare) or drops below
        95% of it, so the axis (and every curve's pixel columns) does not shift on each step."""
        end = self._planned_end
        if planned is None or end is None or not (0.95 * end <= planned <= end):
            end = planned if end is None or planned is None or planned < end else planned * 1.02
        self._planned_end = end
        return end

    def forget_view(self, last_n: int) -> bool:
        """Other runs are shown: no x range left over from the previous ones. Returns whether there is nothing to
        show on the x axis (the plots then show 0..1)."""
        self.x_target = None
        empty = self.data_x_range() is None and self.target_x(last_n) is None
        self._planned_end = None
        return empty

    # ---- per plot --------------------------------------------------------------------------------
    def absent_note(self, key: str) -> str:
        """"not logged by this run" for a training plot (TRAIN_SERIES) that none of the shown runs has a point
        of while each has logged steps (an HF Trainer folder logs no samples/s, older ones no gradient norm);
        "" otherwise (a run that has not logged its first step yet: nothing is missing)."""
        if key not in TRAIN_SERIES or not self.runs:
            return ""
        if any(len(s.series.get(key, ())) for s in self.runs):
            return ""
        if not all(any(len(s.series.get(k, ())) for k in TRAIN_SERIES) for s in self.runs):
            return ""
        return "not logged by this run" if len(self.runs) == 1 else "not logged by these runs"

    def baselines_for(self, key: str) -> list[tuple[float, str, str]]:
        """Dashed baseline lines of a dev plot: (value on the display scale, label, run colour), one per
        distinct (dev data, value) among the shown runs (explorer.core.metrics.baselines)."""
        if not key.startswith(DEV_PREFIX):
            return []
        name, out, seen = key[len(DEV_PREFIX):], [], set()
        for state, color in self.pairs():
            base = state.baseline()
            if base is None or name not in base.metrics:
                continue
            value = to_display(name, base.metrics[name], state.task)
            if (round(value, 6), base.name) in seen:
                continue
            seen.add((round(value, 6), base.name))
            out.append((value, base.label, color if len(self.runs) > 1 else "#666666"))
        return out

    # ---- legend and progress ---------------------------------------------------------------------
    def legend_key(self) -> list[str]:
        """What the legend shows, to compare: each shown run's entry as rich text (its colour, name, status and
        best). The entry itself, not the events it is made of: a best checkpoint's event comes after the
        evaluation it saved, and a key of the evaluations' count kept "best 13.37 @23" beside a saved 26.88 @46."""
        return [rich for _plain, rich in self.legend_entries()]

    def legend_entries(self) -> list[tuple[str, str]]:
        """(plain text, rich text) of each shown run's legend entry: "■ name (status · best …)"."""
        entries = []
        for state, color in self.pairs():
            best = state.best_text() or undefined_best_text(state)   # a metric undefined throughout says why
            extra = (f" · {best}" if best.startswith("best") else f" · best {best}") if best else ""
            name = self.name_of(state.run_id)
            entries.append((f"■ {name} ({state.status}{extra})",
                            f"<span style='color:{color}'>■</span>&nbsp;{html.escape(name)} "
                            f"<span style='color:#666'>({html.escape(state.status + extra)})</span>"))
        return entries

    def run_notes(self) -> list[str]:
        """What a shown run's evaluations say about it (a classifier stuck on one class; metrics its last evaluation
        could not compute, with why: "pearson and spearman undefined: the predictions are constant (…)", whose
        curves have no point there; a step-0 evaluation above the best, which is never saved: ui/runs/step_zero; dev
        rows that repeat training rows, so every dev figure is optimistic: core.metrics.optimism.dev_overlap_mark),
        rich text, one a run; one line for the runs whose dev curves join evaluations on a dev sample (hollow dots)
        with evaluations on every dev row (ui/runs/eval_rows);
        then the evaluations' plan the run the progress line describes decided ("Evaluate before training and at
        the end only (not every 10: more often would not fit)"), so a run that evaluates rarely says why."""
        notes = [f"{html.escape(self.name_of(s.run_id))} {html.escape(note.text, quote=False)}" for s in self.runs
                 if (note := s.one_class_note())]
        notes += [f"{html.escape(self.name_of(s.run_id))}: at step {s.evals[-1].get('step')} "
                  f"{html.escape(note, quote=False)}" for s in self.runs if (note := _undefined_note(s))]
        notes += [f"{html.escape(self.name_of(s.run_id))}: {html.escape(note, quote=False)}" for s in self.runs
                  if (note := untrained_note(s))]
        notes += [f"{html.escape(self.name_of(s.run_id))}: {html.escape(s.dev_overlap.text, quote=False)}"
                  for s in self.runs if s.dev_overlap is not None]   # dev rows that repeat training rows
        if mixed := mixed_rows_note(self.runs, self.name_of):   # hollow dots: a dev sample's figures
            notes.append(f"<span style='color:#444'>{html.escape(mixed, quote=False)}</span>")
        focus = self.focus_run()
        if focus is not None and focus.eval_plan:
            notes.append(f"<span style='color:#444'>{html.escape(self.name_of(focus.run_id))}: "
                         f"{html.escape(focus.eval_plan, quote=False)}</span>")
        return notes

    def focus_run(self) -> RunState | None:
        """The run the progress line describes: the first live one shown, else the first shown."""
        live = [s for s in self.runs if s.is_live]
        return (live or self.runs or [None])[0]

    def progress(self, now: float) -> tuple[tuple[int, int, int, str], tuple[str, list, str] | None]:
        """The progress bar ((minimum, maximum, value, format)) and line ((the run's name, progress parts, the
        tooltip), None without a run) at time ``now`` (seconds since the epoch)."""
        state = self.focus_run()
        if state is None:
            return (0, 1, 0, "no run"), None
        total = max(state.steps_total, 1)
        if state.budget_seconds:   # its steps_total is an estimate the run refines: the bar never goes back
            steps = (0, 1000, round(1000 * state.done_share()), f"{state.status} · %p%")
        else:
            steps = (0, total, min(state.step, total), f"{state.status} · %p%")
        bar = evaluation_bar(state) or steps
        # the rows of a long evaluation, or what a stop waits for, first: the run is not hung
        evaluating = waiting_text(state)
        parts = ([(evaluating, 0)] if evaluating else []) + progress_parts(state, now)
        ends = state.ends_by()   # a time-budgeted run: whether its budget or its last step bounds the time left
        return bar, (self.name_of(state.run_id), parts,
                     f"{state.run_id}: " + " · ".join(text for text, _rank in parts) + (f" ({ends})" if ends else ""))


def _undefined_note(state: RunState) -> str:
    """The metrics a run's last evaluation gave as undefined, with the reason (core.metrics.regression); ""."""
    from explorer.core.metrics.regression import undefined_note

    return undefined_note(state.evals[-1].get("metrics") or {}) if state.evals else ""
