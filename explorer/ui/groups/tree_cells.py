"""What the Groups page's list shows on a group's own row (Qt-free; explorer.ui.groups.tabs renders it).

A group's row says its best figure by the Runs list's group row's rule (explorer.ui.runs.group_rows.GroupRow
.best_cell_text): the mean ± sd of each ended member's best dev figure, "61.13% (1 fold)" while one member has
one, with the Groups page's headline (core.studies.group_stats.best_headline, the metric named) in its tooltip.
The metric's name is left to the tooltip and to the member rows under it: "43.0 ± 1.6% F_avg" did not fit the
"best" column beside the names' share of the list at 1280x800. Left empty, a cross-validation's row said nothing
until every fold had ended and the group was clicked.
"""

from __future__ import annotations

from explorer.core.runs import status as run_status
from explorer.core.specs.metric_display import to_display, value_with_unit
from explorer.core.specs.metrics import higher_is_better
from explorer.core.studies.group_stats import MEMBER_WORDS, best_headline, stats
from explorer.core.studies.groups import MISSING
from explorer.ui.groups.live_members import LiveOf, shown_status

__all__ = ["group_best_cell"]


def group_best_cell(kind: str, states: list, live_of: LiveOf | None = None) -> tuple[str, str]:
    """(the group row's "best" cell, its tooltip) of a group of ``kind`` over its ``states``
    (core.studies.groups.MemberState): the best dev figures, on the display scale, of the members that have ended
    (a member queued or training has a best so far, not its figure: as the Runs list's group row), by the first
    such member's metric; ("", "") before any has one."""
    values, name, task = [], None, None
    for st in states:
        summary = st.summary
        status = shown_status(st.member.run_id, st.status, live_of)
        if summary is None or summary.metric_value is None or run_status.is_live(status) or status == MISSING:
            continue
        name, task = name or summary.metric_name, task or summary.task
        if summary.metric_name == name:
            values.append(to_display(name, summary.metric_value, summary.task))
    if name is None:
        return "", ""
    st = stats(values, higher_is_better(name))
    if not st.n:
        return "", ""
    figure = value_with_unit(name, st.mean, st.sd if st.has_spread else None)
    if not st.has_spread:
        figure += f" ({st.n} {MEMBER_WORDS.get(kind, 'run')}{'s' if st.n != 1 else ''})"
    return figure, best_headline(name, st, kind, task)
