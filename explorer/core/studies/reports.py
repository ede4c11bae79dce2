"""Report folders for a run group or a two-checkpoint comparison: report.md + tables as CSV (no Qt).

Figures (PNG) are drawn by the UI layer (explorer/ui/report_figures.py) into the same folder; the
Markdown links every ``*.png`` it finds there, so a report written without figures is still complete.

Group folder: report.md, runs.csv (one row per member: run_id, status, varied settings, final, best),
summary.csv (final/best mean, sd, best, worst, n of the dev metric, and of every other metric of the last
evaluation), heatmap.csv (grid: x, y, mean, sd, low, high, n),
curves.csv (step, mean, low, high, n of the dev metric band). A learning curve's members train on different numbers
of rows, so its report gives each size's figures (report.md, summary.csv: one column per size) and no band.
Comparison folder: report.md, comparison.json (core.qa.compare.comparison_to_dict), questions.csv (every question), disagreements.csv (sorted by |F1 diff|),
counts.csv.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from explorer.core.protocol.events import json_safe
from explorer.core.qa.compare import comparison_to_dict
from explorer.core.studies.group_stats import (GroupTable, HeatMap, final_metric_stats, mean_band, per_size_lines,
                                                 size_of)
from explorer.core.specs.metric_display import metric_label


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return "" if v is None else str(v)


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> Path:
    """One CSV file (header + rows; NaN/None as empty cells); returns the path."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for r in rows:
            w.writerow([_fmt(r.get(c)) for c in columns])
    return path


def _md_table(columns: list[str], rows: list[dict]) -> list[str]:
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(_fmt(r.get(c)).replace("|", "\\|") for c in columns) + " |" for r in rows]
    return out


def _figures(folder: Path) -> list[str]:
    return [f"![{p.stem}]({p.name})" for p in sorted(folder.glob("*.png"))]


def write_group_report(folder: str | Path, group, members, table: GroupTable, heat: HeatMap | None = None,
                       notes: list[str] | None = None, band_mode: str = "sd", pooled=None,
                       label_issues: dict | None = None, curve_lines: list[str] | None = None) -> Path:
    """Write a group's report folder (see the module docstring); returns the folder.

    Args:
        group: core.studies.groups.Group; members: [group_stats.MemberData]; table: group_stats.group_table(...);
        heat: group_stats.heat_map(...) for a grid (None for restarts); notes: lines read from disk;
        pooled: a cross-validation group's core.studies.cv_runs.OofResult (its pooled out-of-fold figures), or None.
        label_issues: a cross-validation group's suspected label errors (core.studies.label_issues.
            read_group_label_issues: the share per class), or None.
        curve_lines: a learning-curve group's figures in words (one line per training size, the fit and the
            next doubling), written under its plot `learning_curve.png`; or None.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "runs.csv", table.columns, table.rows)
    summary = [{"metric": f"{kind} {table.label or table.metric_name}", "mean": s.mean, "sd": s.sd,
                "best": s.best, "worst": s.worst, "n": s.n} for kind, s in (("final", table.final), ("best", table.best))]
    finals = final_metric_stats(members)
    task = next((m.task for m in members if m.task), None)
    summary += [{"metric": f"final {metric_label(name, task)}", "mean": s.mean, "sd": s.sd, "best": s.best,
                 "worst": s.worst, "n": s.n} for name, s in finals.items() if name != table.metric_name]
    figures = [f"- final {table.label}: {table.figure_text('final')}", f"- best {table.label}: {table.figure_text('best')}",
               *[f"- final {metric_label(name, task)}: {st.text(4)}" for name, st in finals.items()
                 if name != table.metric_name]]
    if group.kind == "curve":   # each size trains on other rows: its figures size by size, never a mean across
        figures = [f"- final {line}" for line in per_size_lines(members, table.metric_name)]
        sizes = [size_of(m) for m in members]
        write_csv(folder / "summary.csv", ["metric", *sizes],
                  [{"metric": f"final {metric_label(name, task)}", **{size: m.final_metrics.get(name, "")
                                                                     for size, m in zip(sizes, members)}}
                   for name in finals])
    else:
        write_csv(folder / "summary.csv", ["metric", "mean", "sd", "best", "worst", "n"], summary)
        band = mean_band([(m.eval_steps, m.eval_values) for m in members], band_mode)
        write_csv(folder / "curves.csv", ["step", "mean", "low", "high", "n"],
                  [{"step": float(s), "mean": float(a), "low": float(lo), "high": float(hi), "n": int(n)}
                   for s, a, lo, hi, n in zip(band.steps, band.mean, band.low, band.high, band.n)])
    lines = [f"# Group {group.name}", "",
             f"{group.kind}, {len(group.members)} runs, varied: {', '.join(group.varied)}; seeds "
             f"{', '.join(map(str, group.seeds))}. Model {group.base.get('model', '?')}, task "
             f"{group.base.get('task', '?')}.", "", *figures,
             "", "## Runs", "", *_md_table(table.columns, table.rows), ""]
    if pooled is not None:   # k-fold cross-validation: every example predicted once by the fold that never saw it
        at = lines.index("## Runs") - 1
        lines[at:at] = [f"- {pooled.text(task)}"] + ([f"- out-of-fold predictions: {pooled.path}"] if pooled.path else [])
        if stuck := pooled.one_class_note(group.base):   # every fold stuck on one class: said in words
            lines.insert(at + 1, f"- {stuck}")
    said = pooled is not None and bool(pooled.one_class_note(group.base))
    if not said:   # members stuck on one class or never predicting some: their mean is no result (group_classes)
        from explorer.core.studies.group_classes import members_class_note

        if stuck := members_class_note(group, members, table.best.sd if table.best.has_spread else None):
            at = lines.index("## Runs") - 1
            lines[at:at] = [f"- {stuck.text}"]
    if group.kind == "cv":   # classes with fewer rows than folds: held out in only some folds
        from explorer.core.studies.cv_runs import group_rare_note

        if rare := group_rare_note(group):
            at = lines.index("## Runs") - 1
            lines[at:at] = [f"- {rare}"]
    if label_issues and label_issues.get("withheld"):   # fold models that learned nothing judge no label
        at = lines.index("## Runs") - 1
        lines[at:at] = [f"- suspected label errors: none listed: {label_issues['withheld']}"]
    elif label_issues:   # confident learning on the out-of-fold probabilities: the share of suspects per class
        at = lines.index("## Runs") - 1
        lines[at:at] = (["- suspected label errors (cleanlab on the out-of-fold probabilities), per class:"]
                        + [f"  - {line}" for line in label_issues.get("lines", [])]
                        + ([f"  - most suspect first: {label_issues['file']}"] if label_issues.get("file") else []))
    if heat is not None:
        cells = [{heat.x_name: x, heat.y_name: y, "mean": heat.mean[iy, ix], "sd": heat.sd[iy, ix],
                  "low": heat.low[iy, ix], "high": heat.high[iy, ix], "n": int(heat.n[iy, ix])}
                 for iy, y in enumerate(heat.y_values) for ix, x in enumerate(heat.x_values)]
        cols = [heat.x_name, heat.y_name, "mean", "sd", "low", "high", "n"]
        write_csv(folder / "heatmap.csv", cols, cells)
        lines += [f"## {table.label} over {heat.x_name} x {heat.y_name}", "", *_md_table(cols, cells), ""]
    figures = _figures(folder)
    if figures:
        lines += ["## Figures", "", *figures, ""]
    if curve_lines:
        lines += ["## Learning curve", "", "![learning curve](learning_curve.png)", "", "```", *curve_lines, "```", ""]
    if notes:
        lines += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")
    return folder


QUESTION_COLUMNS = ["id", "question", "gold", "answer_a", "answer_b", "exact_a", "f1_a", "exact_b", "f1_b",
                    "f1_diff", "score_diff_a", "score_diff_b"]


def _question_row(q) -> dict:
    return {"id": q.id, "question": q.question, "gold": " || ".join(q.gold), "answer_a": q.answer_a,
            "answer_b": q.answer_b, "exact_a": q.exact_a, "f1_a": q.f1_a, "exact_b": q.exact_b, "f1_b": q.f1_b,
            "f1_diff": q.f1_diff, "score_diff_a": q.score_diff_a, "score_diff_b": q.score_diff_b}


def write_comparison_report(folder: str | Path, comparison, data: str = "", show: int = 20) -> Path:
    """Write a comparison's report folder (see the module docstring); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    c = comparison
    write_csv(folder / "questions.csv", QUESTION_COLUMNS, [_question_row(q) for q in c.questions])
    dis = [_question_row(q) for q in c.disagreements()]
    write_csv(folder / "disagreements.csv", QUESTION_COLUMNS, dis)
    write_csv(folder / "counts.csv", ["count", "questions"], [{"count": k, "questions": v} for k, v in c.counts.items()])
    (folder / "comparison.json").write_text(json.dumps(json_safe(comparison_to_dict(c)), allow_nan=False), encoding="utf-8")
    lines = [f"# {c.label_a} vs {c.label_b}", "", f"Data: {data} ({c.version}, {len(c.questions)} questions; "
             f"tau A {c.tau_a:g}, tau B {c.tau_b:g}).", "",
             f"- A {c.label_a}: exact_match {c.metrics_a['exact_match']:.2f}, f1 {c.metrics_a['f1']:.2f}",
             f"- B {c.label_b}: exact_match {c.metrics_b['exact_match']:.2f}, f1 {c.metrics_b['f1']:.2f}",
             *[f"- {line}" for line in c.count_lines()], "",
             *(["## Is B better than A?", "", *[f"- {line}" for line in c.significance().lines()], ""]
               if c.questions else []),
             f"## Disagreements ({len(dis)}; the first {min(show, len(dis))} by |F1 B - F1 A|)", "",
             *_md_table(["id", "question", "gold", "answer_a", "answer_b", "f1_diff"], dis[:show]), ""]
    figures = _figures(folder)
    if figures:
        lines += ["## Figures", "", *figures, ""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")
    return folder

