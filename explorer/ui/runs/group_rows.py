"""What the Runs dock shows on a run group's row (Qt-free; explorer.ui.runs.dock renders it).

A group (explorer/core/studies/groups.py) is one expandable row with its member runs as children. The group row
reads its members' RunStates: the status counts ("2 finished, 1 running"), the best dev metric as
mean ± sd over the members that have one, in the Groups page's words (core.studies.group_stats.best_headline;
sample sd, ddof=1; a
learning curve: its largest size's, as its members train on different rows; a cross-validation whose held-out folds
are predicted: the pooled out-of-fold figure of the ranking metric, its answer as on the Groups page, with the folds'
spread in the tooltip), the total size, and the group's task and model from the group file's base settings.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from explorer.core.runs import status as run_status
from explorer.core.studies.group_classes import GroupClassNote, group_class_note, member_name, shared_learning_rate
from explorer.core.studies.group_stats import MEMBER_WORDS, Stats, best_headline, stats
from explorer.core.studies.groups import MISSING, Group
from explorer.ui.runs.state import NOT_STARTED, listed_status, undefined_best_text

LIVE_FIRST = (run_status.RUNNING, run_status.STARTING, run_status.STOPPING, run_status.CANCELLING, run_status.QUEUED,
              NOT_STARTED, run_status.FAILED, run_status.CRASHED, run_status.CANCELLED, run_status.STOPPED,
              run_status.FINISHED, MISSING)


@dataclass
class GroupRow:
    """One group as listed: its file data, and its members' states (None = no run folder listed)."""

    group: Group
    states: list   # RunState | None per member, in group order
    pooled: object | None = None   # a cv group's core.studies.cv_runs.OofResult (oof_metrics.json), None before it
    judge: object | None = None   # RunState -> (best_metric(), one_class_note()), cached per change (RunCells.judged)

    def pooled_figure(self) -> tuple[str, float] | None:
        """A cross-validation's (ranking metric, pooled out-of-fold value on the display scale): every example
        predicted once by the fold model that never saw it; the metric is the members' (their best dev's), else
        the task's. None for other kinds, before oof_metrics.json exists, or when it lacks that metric."""
        metrics = getattr(self.pooled, "metrics", None) if self.group.kind == "cv" else None
        if not metrics:
            return None
        name = self.best()[0]
        if name is None:
            from explorer.core.specs.tasks import find_task_facts

            facts = find_task_facts(self.task)
            name = facts.best_metric if facts else None
        value = metrics.get(name) if name else None
        return (name, float(value)) if isinstance(value, (int, float)) else None

    @property
    def name(self) -> str:
        return self.group.name

    def statuses(self) -> dict[str, int]:
        """status -> member count, live ones first; "missing" for members not listed (never started), "not started"
        for those queued when the app quit (state.listed_status)."""
        counts: dict[str, int] = {}
        for s in self.states:
            key = MISSING if s is None else listed_status(s)
            counts[key] = counts.get(key, 0) + 1
        order = {k: i for i, k in enumerate(LIVE_FIRST)}
        return dict(sorted(counts.items(), key=lambda kv: order.get(kv[0], len(order))))

    def status_text(self) -> str:
        """'3 finished' or '1 running, 2 queued'."""
        return ", ".join(f"{n} {status}" for status, n in self.statuses().items())

    def colour_status(self) -> str:
        """The status whose colour the row takes: live, else failed/crashed, else finished."""
        counts = self.statuses()
        return next(iter(counts)) if counts else MISSING

    def best(self) -> tuple[str | None, Stats]:
        """(metric name, Stats of the best dev figure the members that have ended are listed by, on the display scale:
        RunState.listed_best, so a SQuAD 2.0 group's f1 at τ = 0, as its members' rows): a member
        still queued or training has a best so far, not its figure, and would pull the group's mean (two ended
        restarts at 60.5 and 60.8 beside one at 46.1 mid-run read "55.8 ± 8.4"; as the Groups page's final figures)."""
        values, name = [], None
        for s in self.states:
            found = s.listed_best() if s is not None and not s.is_live else None   # as each run's own row
            if found is not None:
                name = name or found[0]
                if found[0] == name:
                    values.append(found[1])
        from explorer.core.specs.metrics import higher_is_better

        return name, stats(values, higher_is_better(name))

    def class_note(self) -> GroupClassNote:
        """The group's sentence when all or some of its ended members predict one class for every dev row or never
        predict some classes (core.studies.group_classes.group_class_note over each member's
        RunState.one_class_note), the Groups page's words; a cross-validation whose pooled out-of-fold predictions
        are all one class: every fold learned nothing (its pooled note, as on the Groups page)."""
        pooled = self.pooled.one_class_note(self.group.base) if self.pooled is not None else ""
        if pooled:
            return GroupClassNote("learned nothing", pooled, len(self.states), len(self.states))
        judged = [((self.judge or _judged)(s), m) for m, s in zip(self.group.members, self.states)
                  if s is not None and not s.is_live]
        ended = [(note, m) for (best, note), m in judged if best is not None]
        _, st = self.best()
        return group_class_note([note for note, _ in ended], self.group.kind,
                                spread=st.sd if st.has_spread else None, learning_rate=shared_learning_rate(self.group),
                                names=[member_name(self.group.kind, m.params) for _, m in ended])

    def best_text(self) -> str:
        """'best dev acc 74.1 ± 2.3% over 5 seeds': core.studies.group_stats.best_headline, the Groups page's
        headline; 'best dev F_avg 41.50% over 1 seed' while only one member has a figure ('' before any member has
        an evaluation); a learning curve's largest size, a cross-validation's pooled figure."""
        from explorer.core.specs.metric_display import value_then_metric

        if self.group.kind == "curve":
            largest = self.largest_size()
            return (f"{value_then_metric(largest[0], largest[1], self.task)} at {largest[2]}" if largest else "")
        pooled = self.pooled_figure()
        if pooled is not None:   # the cross-validation's answer; the folds' mean ± sd is in the tooltip
            return value_then_metric(pooled[0], pooled[1], self.task)
        name, st = self.best()
        if name is None or not st.n:   # no member has a best; one whose metric was undefined throughout says so
            return next((text for s in self.states if s is not None and (text := undefined_best_text(s, short=True))),
                        "")
        return best_headline(name, st, self.group.kind, self.task)   # the Groups page's headline, word for word

    def best_cell_text(self) -> str:
        """The Best dev cell of the group row, as short as a run's cell so the Run column keeps its width:
        "85.0 ± 5.0% acc" (the members' mean ± sd), "61.13% macro F1 (1 fold)" while one member has a figure (no
        ± to say it is one); the whole headline (:meth:`best_text`) is the row's tooltip. A learning curve's and a
        cross-validation's pooled figure, and an undefined best, read as in :meth:`best_text`."""
        from explorer.core.specs.metric_display import value_then_metric

        name, st = self.best()
        if self.group.kind == "curve" or self.pooled_figure() is not None or name is None or not st.n:
            text = self.best_text()
            return text + self.class_note().mark() if text else text
        figure = value_then_metric(name, st.mean, self.task, st.sd if st.has_spread else None)
        if not st.has_spread:
            figure += f" ({st.n} {MEMBER_WORDS.get(self.group.kind, 'run')}{'s' if st.n != 1 else ''})"
        return figure + self.class_note().mark()   # amber in the list, its sentence in the tooltip

    def warns(self) -> bool:
        """Whether the Best dev cell is drawn in the warning colour: some members learned nothing (:meth:`class_note`)."""
        return bool(self.best_text()) and bool(self.class_note())

    def largest_size(self) -> tuple[str, float, str] | None:
        """A learning curve's (metric name, best dev value, "3200 rows") of its largest size with an evaluation:
        its members train on different numbers of rows, so their mean would estimate nothing."""
        found = None
        for m, s in zip(self.group.members, self.states):
            best = s.listed_best() if s is not None else None
            rows = m.params.get("train_rows") or 0
            if best is not None and (found is None or rows >= found[0]):
                found = (rows, best[0], best[1])
        return (found[1], found[2], f"{int(found[0])} rows") if found else None

    def best_sort_key(self) -> float:
        if self.group.kind == "curve":
            largest = self.largest_size()
            return largest[1] if largest else -1.0
        pooled = self.pooled_figure()
        if pooled is not None:
            return pooled[1]
        _, st = self.best()
        return st.mean if st.n else -1.0

    @property
    def task(self) -> str:
        return str(self.group.base.get("task") or "")

    @property
    def model(self) -> str:
        return str(self.group.base.get("model") or "")

    def sort_name(self) -> str:
        """Sorts among run ids (which start with their start time) by the group's creation time."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.group.created)) if self.group.created else ""
        return f"{stamp}-{self.name}"

    def tooltip(self) -> str:
        g = self.group
        name, st = self.best()
        headline = self.best_text()   # the Best dev cell's whole figure (best_cell_text is its short form)
        stuck = self.class_note() if headline else None
        lines = ([headline] if headline else []) + ([stuck.text] if stuck else []) + [
            f"group {g.name}: {g.kind}, {len(g.members)} runs, varied {', '.join(g.varied) or '-'}",
            f"task: {self.task or '-'} · model: {self.model or '-'}"]
        if st.n and g.kind == "curve":
            lines.append(f"best dev {name} of the largest size evaluated: {self.best_text()} (each size trains on "
                         "other rows: no mean across sizes)")
        elif st.n:
            pooled = self.pooled_figure()
            if pooled is not None:
                lines.append(f"pooled out-of-fold {pooled[0]}: {self.best_text()} (n {self.pooled.n}, each example "
                             f"predicted once by the fold model that never saw it, {self.pooled.folds_done} of "
                             f"{self.pooled.k} folds): the cross-validation's answer")
            note = self.pooled.class_note(pooled[0]) if pooled is not None else ""   # when the class sets differ
            lines.append(f"best dev {name} over {st.n} {'fold run' if pooled else 'run'}(s): {st.text()}"
                         + (f" ({note})" if note else ""))
        for m, s in zip(g.members, self.states):
            params = ", ".join(f"{k} {v}" for k, v in m.params.items())
            undefined = undefined_best_text(s) if s is not None else ""
            lines.append(f"  {m.run_id}: {MISSING if s is None else s.status} ({params})"
                         + (f"; {undefined}" if undefined else ""))
        lines.append("Select the row for the group curves and table; F2 renames, Delete deletes the group.")
        return "\n".join(lines)


def _judged(s) -> tuple:
    """(``s.best_metric()``, ``s.one_class_note()``) of a RunState, worked out afresh."""
    return s.best_metric(), s.one_class_note()


def group_of(groups: list[Group]) -> dict[str, str]:
    """run_id -> the name of the first group listing it (a run listed by two groups goes under the first)."""
    out: dict[str, str] = {}
    for g in groups:
        for m in g.members:
            out.setdefault(m.run_id, g.name)
    return out
