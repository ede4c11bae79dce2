"""The first lines of the Groups page's summary under the plots (Qt-free; explorer.ui.groups.view shows them).

Restarts, a grid's cells and cross-validation folds estimate one figure several times: the headline is the mean ± sd
of each member's best dev evaluation (checkpoints/best), the Runs list's group row word for word
(core.studies.group_stats.best_headline); the final dev metrics follow as mean ± sd with the 95% Student t interval
of the mean (core/metrics/significance.py). A learning curve's members each train on a different number of rows, so a mean
across them estimates nothing: its figures read size by size (core.studies.group_stats.per_size_lines).
"""

from __future__ import annotations

import html

from explorer.core.specs.metric_display import display_number, metric_label
from explorer.core.studies.group_classes import members_class_note
from explorer.core.studies.group_stats import (best_headline, final_metric_intervals, final_metric_stats,
                                               per_size_lines)


WARNING_SPAN = "<span style='color:#b26a00'>{}</span>"   # the launcher's warning colour (ui.launch.form_model)


def class_line(group, members: list, table, said: bool = False) -> str:
    """Rich text: "<br>" and, in the warning colour, the group's sentence when all or some of its members predict
    one class for every dev row or never predict some classes (core.studies.group_classes); "" when none does or
    when ``said`` (a cross-validation's pooled note already says every fold learned nothing)."""
    note = "" if said else members_class_note(group, members, table.best.sd if table.best.has_spread else None)
    return f"<br>{WARNING_SPAN.format(html.escape(note.text))}" if note else ""


def summary_head(group, members: list, table, notes: list, said: bool = False) -> str:
    """Rich text: the best (headline) and final dev metric of ``group`` (core.studies.groups.Group) over ``members``
    ([group_stats.MemberData]) with ``table`` their group_stats.GroupTable, the members' one-class sentence
    (:func:`class_line`; ``said``: already said by the pooled figures), the other final metrics and, for restarts,
    grids and folds, each mean's t interval; the count of ``notes``."""
    name = table.label or "dev metric"
    noted = f"  |  {len(notes)} note(s)" if notes else ""
    stuck = class_line(group, members, table, said)
    if group.kind == "curve":   # the other metrics come last (summary_tail): the curve's own lines matter more
        lines = per_size_lines(members, table.metric_name)
        return (f"final {html.escape(lines[0])}{noted}" if lines else f"final {name}: -{noted}") + stuck
    task = next((m.task for m in members if m.task), None)
    others = [f"{metric_label(k, task)} {display_number(k, st.mean, sd=st.has_spread)}"   # the Runs list's digits
              + (f" ± {display_number(k, st.sd, sd=True)}" if st.has_spread else f" (n {st.n})")
              for k, st in final_metric_stats(members).items()
              if k not in (table.metric_name, "total") and st.n]
    # the headline is the Runs list's group row, word for word: each run's best evaluation (checkpoints/best);
    # the last evaluation's figure follows it, labelled "final"
    head = best_headline(table.metric_name, table.best, group.kind, task) or f"best {name}: {table.figure_text('best')}"
    spread = f" (best {table.best.best:.2f}, worst {table.best.worst:.2f})" if table.best.has_spread else ""
    text = (f"<b>{html.escape(head)}</b>{spread}  |  final {name}: {table.figure_text('final')}{noted}" + stuck
            + (f"<br>other final dev metrics (mean ± sd): {', '.join(others)}" if others else ""))
    # the mean of restarts/folds with its 95% Student t interval (core/metrics/significance.py)
    intervals = [f"{metric_label(k, task)} {ci.text(2)}" for k, ci in final_metric_intervals(members).items()
                 if k != "total" and ci.n > 1]
    if intervals:
        text += "<br>95% t interval of each final mean: " + "; ".join(intervals)
    return text


def summary_tail(group, members: list, table) -> str:
    """Rich text after a learning curve's own lines: its other final metrics, each size on its own ("" for other
    groups, whose summary_head gives them as means)."""
    if group.kind != "curve":
        return ""
    rest = [html.escape(x) for x in per_size_lines(members, table.metric_name)[1:]]
    return ("<br>other final dev metrics, each size on its own (a mean across sizes would estimate nothing): "
            + "; ".join(rest)) if rest else ""

