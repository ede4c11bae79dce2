"""`bert-explorer runs [DIR...]`: every run found under DIR, ours and other tools' (HF Trainer, TensorBoard);
without DIR, the desktop app's runs folder (explorer.paths.app_runs_dir), named on stderr.

Example::

    bert-explorer runs                                               # the app's runs folder
    bert-explorer runs ~/bert-explorer-runs ~/hf-output            # a header, then one line per run
    bert-explorer runs ~/hf-output --json                            # the same as a JSON list
    bert-explorer runs ~/bert-explorer-runs --export-csv all.csv --wide   # every run's scalars, one table

A header row names the columns (``--no-header``: none, for scripts); a line: run id, kind, status, step
(done/planned), task, best metric (name=value@step; shares in percent, "f_avg=49.85%", whatever scale the run
stored: one unit for every run; "pearson=undefined (the predictions are constant (…))" when every evaluation
gave it as undefined; a SQuAD 2.0 run: f1 at τ = 0 of the checkpoint best_f1 picked, then that best_f1 in
brackets, said as tuned on the same dev questions), path; tab-separated. ``--json`` keeps the stored values. A run whose last evaluation
predicted one class for every dev row (a tagger: one tag, "O", for every dev token) gets a ``note:`` line on
stderr with what to try, as the app's Curves page says it.
Folders are searched a few levels down (explorer.core.runs.reading.find_runs); one that cannot be read is named
on stderr and the others are still listed. ``--export-csv`` writes ``run, step, name, value`` rows
(explorer.core.runs.tensorboard; ``--wide``: one row per run and step, one column per scalar name; ``--x epoch``
or ``--x examples``: a column of epochs or training examples seen after step, as the Curves page's x axis).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from explorer.core.errors import UserError, exits_on_user_error


class _RunsError(UserError):
    pass


def add_arguments(parser) -> None:
    parser.add_argument("folders", nargs="*", metavar="DIR",
                        help="a runs folder, an HF Trainer output_dir, a run folder; none: the desktop app's runs "
                             "folder (the one it remembers, else $EXPLORER_RUNS_DIR or ~/bert-explorer-runs)")
    parser.add_argument("--json", action="store_true", help="print a JSON list (one object per run) instead of lines")
    parser.add_argument("--no-header", action="store_true", help="no header row before the lines (for scripts)")
    parser.add_argument("--export-csv", default="", metavar="FILE",
                        help="also write every listed run's scalars to FILE (long: run, step, name, value)")
    parser.add_argument("--wide", action="store_true",
                        help="with --export-csv: one row per run and step, one column per scalar name")
    parser.add_argument("--x", default="step", choices=("step", "epoch", "examples"), dest="x_unit",
                        help="with --export-csv: also a column of epochs or training examples seen after step "
                             "(step x the run's steps per epoch or effective batch size), so runs of different "
                             "batch or training-set sizes line up")


def run_row(rec) -> dict:
    """One run as the command shows it (a RunRecord of explorer.core.runs.reading). ``best``: the figure the run is
    listed by (RunSummary.listed); a SQuAD 2.0 run picked by best_f1 is listed by f1 at τ = 0,
    with ``picked_by`` the best_f1 that picked its checkpoint (tuned on the same dev questions, so optimistic)."""
    s = rec.summary
    listed, value = s.listed()
    best = {"name": listed, "value": value} if value is not None else None
    if best is not None and listed != s.metric_name and s.metric_value is not None:
        best["picked_by"] = {"name": s.metric_name, "value": s.metric_value, "tuned_on_dev": True}
    if best is None and s.metric_undefined:   # no best to rank: the metric was undefined at every evaluation
        best = {"name": s.metric_name, "value": None, "undefined": s.metric_undefined}
    if rec.best is not None:
        best = {"name": rec.best[0], "value": rec.best[1], "step": rec.best[2]}
    return {"run_id": rec.run_id, "kind": rec.kind, "status": s.status, "step": s.steps, "steps_total": s.steps_total,
            "task": s.task, "model": s.model, "best": best, "path": rec.path}


def one_class_line(rec) -> str:
    """"RUN predicts only 'O' for every dev token: try …" when a run's last evaluation predicted one class for
    everything its head counts it over, "RUN predicts no better than the mean score …" when a regression run's
    best evaluation is no better than the mean (explorer.core.metrics.baselines.run_one_class_note), else ""."""
    from explorer.core.metrics.baselines import run_one_class_note

    evals = rec.evals()
    if not evals:
        return ""
    config = rec.config or {}
    try:
        rate = float(config.get("learning_rate")) if config.get("learning_rate") is not None else None
    except (TypeError, ValueError):
        rate = None
    task = str(config.get("task") or (rec.summary.task if rec.summary else "") or "")
    note = run_one_class_note(task, evals, rate, step=rec.summary.steps if rec.summary else 0)
    return f"{rec.run_id} {note.text}" if note else ""


HEADER = ("run", "kind", "status", "step", "task", "best", "path")   # the columns of row_line


def row_line(row: dict) -> str:
    """'out  HF Trainer  HF Trainer run  6/6  single  accuracy=50.00%@2  /path' (tab-separated, the HEADER columns;
    the best value on the display scale, every share in percent: core.specs.metric_display.name_equals_value)."""
    from explorer.core.specs.metric_display import name_equals_value

    step = f"{row['step']}/{row['steps_total']}" if row["steps_total"] else str(row["step"])
    best = row["best"]
    best_text = "" if best is None else (name_equals_value(best["name"], best["value"], row["task"] or "")
                                         + (f"@{best['step']}" if "step" in best else "")
                                         + (f" ({best['undefined']})" if best.get("undefined") else "")
                                         + picked_by_text(best, row["task"] or ""))
    return "\t".join([row["run_id"], row["kind"], row["status"], step, row["task"] or "-", best_text or "-",
                      row["path"]])


def picked_by_text(best: dict, task: str) -> str:
    """' (checkpoint picked by best_f1=58.54%, its threshold tuned on these same dev questions: …)' after a listed
    figure whose checkpoint another figure picked, one tuned on the dev questions it scores; '' otherwise."""
    from explorer.core.specs.metric_display import name_equals_value

    picked = best.get("picked_by")
    if not picked:
        return ""
    return (f" (checkpoint picked by {name_equals_value(picked['name'], picked['value'], task)}, its threshold tuned "
            "on these same dev questions: optimistic; τ on dev set gives the honest half-split F1)")


@exits_on_user_error
def run(args) -> int:
    from explorer.core.runs.reading import find_runs, load_run
    from explorer.core.runs.export import write_records_csv

    if args.wide and not args.export_csv:
        raise _RunsError("--wide needs --export-csv FILE (the CSV to write)")
    if args.x_unit != "step" and not args.export_csv:
        raise _RunsError("--x needs --export-csv FILE (the CSV to write)")
    if not args.folders:
        from explorer.paths import app_runs_dir

        folder = app_runs_dir()
        print(f"listing the app's runs folder {folder} (name a DIR to list another)", file=sys.stderr)
        if not folder.is_dir():
            raise _RunsError(f"{folder}: no runs folder yet (the app makes it at the first run); name a DIR to list")
        args.folders = [str(folder)]
    records, problems = [], []
    for folder in args.folders:
        if not Path(folder).is_dir():
            raise _RunsError(f"{folder}: no such folder")
        for path in find_runs(folder):
            try:
                records.append(load_run(path))
            except (ValueError, OSError, UserError) as exc:
                problems.append(f"{path}: {exc}")
    for line in problems:
        print(f"warning: {line}", file=sys.stderr)
    for rec in records:   # a model stuck on one class or tag, said as the app's Curves say it
        note = one_class_line(rec)
        if note:
            print(f"note: {note}", file=sys.stderr)
    rows = [run_row(r) for r in records]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        if rows and not args.no_header:
            print("\t".join(HEADER))
        for row in rows:
            print(row_line(row))
        if not rows:
            print(f"no runs found under {', '.join(args.folders)}", file=sys.stderr)
    if args.export_csv:
        try:
            n = write_records_csv(args.export_csv, records, wide=args.wide, x_unit=args.x_unit)
        except ValueError as exc:
            raise _RunsError(f"--x {args.x_unit}: {exc}") from None
        except OSError as exc:
            raise _RunsError(f"{args.export_csv}: cannot write ({exc.strerror or exc})") from None
        print(f"wrote {n} rows of {len(records)} runs to {args.export_csv}", file=sys.stderr)
    return 0
