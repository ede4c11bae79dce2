"""`bert-explorer baseline`: is BERT worth it here? A run against a bag-of-words baseline on its own dev rows.

Usage::

    bert-explorer baseline runs/stance-01 [--best] [--resamples 10000] [--json]

Fits TF-IDF + logistic regression (Ridge for a regression head, one per label for a multi-label head) on the
run's training rows, scores it and the run's checkpoint on the run's dev rows (its held-out split when it had
no dev file) and prints the paired test of the fine-tune against the baseline (bootstrap intervals, McNemar's
exact test; for a sentence-pair regression also the base encoder's cosine), and keeps them in the run folder
(baseline_bag_of_words.json, which the Runs list and the capsule read). A figure that reads optimistic is
marked with the reason (explorer/core/studies/run_baseline.py, explorer/core/metrics/optimism.py). Exit codes:
0 done, 2 unusable run or data.
"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.core.errors import exits_on_user_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="a run folder (runs/<run id>)")
    parser.add_argument("--best", action="store_true",
                        help="score checkpoints/best instead of checkpoints/last (best was picked on these dev rows, "
                             "so its figures are marked optimistic)")
    parser.add_argument("--resamples", type=int, default=10_000, help="paired bootstrap resamples (default 10000)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--progress", action="store_true",
                        help="print each stage and the dev rows scored as 'progress {JSON}' lines on stderr "
                             "(the GUI's job row reads them)")


def _progress_line(stage: str, done: int, total: int) -> None:
    """One 'progress {"stage": …, "done": …, "total": …}' line on stderr, flushed (read by
    explorer.ui.runs.baseline_jobs)."""
    from explorer.core.studies.run_baseline import PROGRESS_PREFIX

    print(PROGRESS_PREFIX + json.dumps({"stage": stage, "done": done, "total": total}), file=sys.stderr, flush=True)


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    from explorer.core.studies.run_baseline import run_baseline, write_run_baseline

    report = run_baseline(args.run, checkpoint="best" if args.best else "last", resamples=args.resamples,
                          batch_size=args.batch_size, progress=_progress_line if args.progress else None)
    path = write_run_baseline(report, args.run)
    print(json.dumps(report.to_dict(), indent=2) if args.json else "\n".join(report.lines()))
    print(f"written to {path} (the Runs list and the capsule read it)", file=sys.stderr)
    return 0
