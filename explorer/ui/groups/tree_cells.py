"""What the Groups page's list shows on a group's own row and on its members' rows (Qt-free;
explorer.ui.groups.tabs renders it).

A group's row says its best figure by the Runs list's group row's rule (explorer.ui.runs.group_rows.GroupRow
.best_cell_text): the mean ± sd of each ended member's best dev figure, "61.13% (1 fold)" while one member has
one, with the Groups page's headline (core.studies.group_stats.best_headline, the metric named) in its tooltip.
The metric's name is left to the tooltip and to the member rows under it: "43.0 ± 1.6% F_avg" did not fit the
"best" column beside the names' share of the list at 1280x800. Left empty, a cross-validation's row said nothing
until every fold had ended and the group was clicked.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.runs import status as run_status
from explorer.core.specs.metric_display import to_display, value_with_unit
from explorer.core.specs.metrics import higher_is_better
from explorer.core.studies.group_stats import MEMBER_WORDS, best_headline, stats
from explorer.core.studies.groups import MISSING
from explorer.ui.groups.live_members import LiveOf, shown_status

__all__ = ["MemberCells", "group_best_cell", "member_cells"]


def group_best_cell(kind: str, states: list, live_of: LiveOf | None = None) -> tuple[str, str]:
    """(the group row's "best" cell, its tooltip) of a group of ``kind`` over its ``states``
    (core.studies.groups.MemberState): the best dev figures, on the display scale, of the members that have ended
    (a member queued or training has a best so far, not its figure: as the Runs list's group row), by the first
    such member's metric; ("", "") before any has one."""
    values, name, task = [], None, None
    for st in states:
        summary = st.summary
        status = shown_status(st.member.run_id, st.status, live_of)
        listed = summary.listed() if summary is not None else ("", None)   # SQuAD 2.0: f1 at τ = 0, not best_f1
        if listed[1] is None or run_status.is_live(status) or status == MISSING:
            continue
        name, task = name or listed[0], task or summary.task
        if listed[0] == name:
            values.append(to_display(name, listed[1], summary.task))
    if name is None:
        return "", ""
    st = stats(values, higher_is_better(name))
    if not st.n:
        return "", ""
    figure = value_with_unit(name, st.mean, st.sd if st.has_spread else None)
    if not st.has_spread:
        figure += f" ({st.n} {MEMBER_WORDS.get(kind, 'run')}{'s' if st.n != 1 else ''})"
    return figure, best_headline(name, st, kind, task)


@dataclass(frozen=True)
class MemberCells:
    """A member's row in the Groups page's list: its status as shown, its "best" cell, that cell's tooltip, and
    whether the cell is amber (the last evaluation stuck on one class)."""

    status: str
    best: str
    best_tip: str = ""
    warn: bool = False


def member_cells(st, live_of: LiveOf | None = None) -> MemberCells:
    """The cells of member ``st`` (core.studies.groups.MemberState) in the Runs list's form: its best dev figure
    with its metric and " · one class" (run_cells.class_mark), "undefined" for a metric undefined throughout
    (its words in the tooltip), amber with the one-class note in the tooltip; the status the runner shows while
    the member is queued or runs (live_members.shown_status)."""
    from explorer.core.metrics.baselines import regression_task
    from explorer.core.specs.metric_display import undefined_text, value_then_metric
    from explorer.ui.runs.run_cells import class_mark

    summary = st.summary
    listed, best = summary.listed() if summary else ("", None)   # the figure the Runs list shows
    undefined = summary.metric_undefined if summary else ""   # the metric undefined throughout
    shown = (value_then_metric(listed, to_display(listed, best, summary.task), summary.task)
             + class_mark(st.class_note)   # " · one class", the Runs list's mark by the same rule
             if best is not None else "undefined" if undefined else "")   # the Runs list's form
    status = shown_status(st.member.run_id, st.status, live_of)
    if undefined:
        return MemberCells(status, shown, undefined_text(summary.metric_name, undefined, summary.task))
    if best is not None and st.class_note:   # amber, its words in the tooltip, as in the Runs list
        whose = "the run" if regression_task(summary.task) else "the last evaluation"
        return MemberCells(status, shown, f"{shown}\nnote: {whose} {st.class_note.text}", warn=True)
    return MemberCells(status, shown)
