"""Time to a useful model, two recipes side by side: dev F1 of a variant against the reference in the same run.

    python scripts/time_to_f1_ab.py --out /tmp/ab --minutes 30 --variant "--max-seq-length 384"
    python scripts/time_to_f1_ab.py --out /tmp/ab --minutes 30 --variant "-- --head-lr-multiplier 10"
    python scripts/time_to_f1_ab.py --out /tmp/ab --minutes 30 --reference "--max-seq-length 384" \\
        --variant "--max-seq-length 384 --batch-size 8"

What it does: starts scripts/time_to_f1.py twice at once, the reference recipe (the fast-CPU preset, changed by
``--reference``) and the variant (the preset changed by ``--variant``; flags of time_to_f1.py, then train flags
after ``--``), each on one torch thread (``EXPLORER_TORCH_THREADS=1``) with the same time budget, snapshots and
dev questions (``--compare-only`` compares the curves of an earlier run again). Each run's output goes to
``<out>/reference.log`` / ``<out>/variant.log``, its curve to ``<out>/<name>/curve.json``.

Why side by side: on a 2-core machine the load of anything else running falls on both runs alike, so the
difference in dev F1 measures the recipe, not the moment. The minutes of one core are not those of a whole
machine: compare a side-by-side figure only with another side-by-side figure.

Prints each run's curve (minutes, step, windows, exact_match, f1), the end figures and the variant's F1 minus the
reference's at the end and after every count of training windows both runs snapshotted at (``--save-every`` steps
of each run's batch); asserts nothing. ``--results`` records one entry in
benchmarks/results/time_to_f1.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_command(args, name: str, flags: str) -> list[str]:
    """The time_to_f1.py command of one side: the shared settings, then that side's own flags."""
    cmd = [sys.executable, str(ROOT / "scripts" / "time_to_f1.py"), "--out", str(Path(args.out) / name),
           "--save-every", str(args.save_every), "--dev-questions", str(args.dev_questions)]
    if args.minutes is not None:
        cmd += ["--minutes", str(args.minutes)]
    return cmd + shlex.split(flags)


def run_both(args, loads: list[float]) -> dict[str, list[dict]]:
    """Start both runs, wait for both (appending the 1-minute load average to ``loads`` every 30 s), return
    name -> curve rows (time_to_f1.py's curve.json)."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "EXPLORER_TORCH_THREADS": "1"}
    procs = {}
    for name, flags in (("reference", args.reference), ("variant", args.variant)):
        cmd = run_command(args, name, flags)
        print(f"{name}: $ {' '.join(cmd)}", flush=True)
        log = open(out / f"{name}.log", "w")
        procs[name] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env), log)
    while any(proc.poll() is None for proc, _log in procs.values()):
        loads.append(os.getloadavg()[0])
        time.sleep(30)
    for name, (proc, log) in procs.items():
        log.close()
        if proc.returncode != 0:
            raise SystemExit(f"the {name} run failed (exit {proc.returncode}); see {out / (name + '.log')}")
    return {name: json.loads((out / name / "curve.json").read_text()) for name in procs}


def compare(curves: dict[str, list[dict]]) -> tuple[dict, dict]:
    """The figures (each side's end and per-snapshot F1 / EM) and the variant-minus-reference differences in F1
    points, at the end and after the same number of training windows.

    Raises:
        SystemExit: a side with no evaluated snapshot."""
    ref, var = curves["reference"], curves["variant"]
    if not ref or not var:
        raise SystemExit("a run left no evaluated snapshot; see its log")
    figures, ratios = {}, {}
    for name, rows in curves.items():
        end = rows[-1]
        figures.update({f"{name}: dev F1 at the end": end["f1"], f"{name}: dev EM at the end": end["exact_match"],
                        f"{name}: steps": end["step"], f"{name}: windows seen": end["windows"]})
        for row in rows[:-1]:
            figures[f"{name}: dev F1 after {row['seconds'] / 60:.1f} min (step {row['step']})"] = row["f1"]
    ratios["dev F1 at the end: variant - reference (points)"] = var[-1]["f1"] - ref[-1]["f1"]
    ref_by_windows = {r["windows"]: r for r in ref[:-1]}   # the same training windows seen (batch sizes may differ)
    for row in var[:-1]:
        if row["windows"] in ref_by_windows:
            ratios[f"dev F1 after {row['windows']:,} windows: variant - reference (points)"] = \
                row["f1"] - ref_by_windows[row["windows"]]["f1"]
    return figures, ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reference", default="", help="time_to_f1.py flags of the reference (default: the preset)")
    ap.add_argument("--variant", required=True, help="time_to_f1.py flags of the variant, train flags after --")
    ap.add_argument("--minutes", type=float, default=None, help="the time budget of both (default: the preset's 30)")
    ap.add_argument("--save-every", type=int, default=200)
    ap.add_argument("--dev-questions", type=int, default=1000)
    ap.add_argument("--compare-only", action="store_true",
                    help="run nothing: compare the curves <out>/reference/curve.json and <out>/variant/curve.json "
                         "of an earlier side-by-side run")
    sys.path.insert(0, str(ROOT))
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args()
    load0, loads = load_average(), []
    if args.compare_only:
        out = Path(args.out)
        curves = {name: json.loads((out / name / "curve.json").read_text()) for name in ("reference", "variant")}
    else:
        curves = run_both(args, loads)
    figures, ratios = compare(curves)
    for name, rows in curves.items():
        print(f"\n{name} ({args.reference if name == 'reference' else args.variant or 'the preset'}):")
        for r in rows:
            print(f"  {r['seconds'] / 60:6.1f} min  step {r['step']:4d}  {r['windows']:6d} windows  "
                  f"exact_match {r['exact_match']:.2f}  f1 {r['f1']:.2f}")
    print()
    for key, value in ratios.items():
        print(f"{key}: {value:+.2f}")
    span = f"{min(loads):.1f}-{max(loads):.1f}" if loads else "unknown"
    print(f"load: {load0} at the start, {span} while both ran, {load_average()} at the end")
    record(args, "time_to_f1", case=f"side by side, one thread each: {args.variant} against "
           f"{args.reference or 'the fast-CPU preset'}", figures=figures, ratios=ratios, load_start=load0,
           notes=f"1-minute load average {span} while both runs trained and were evaluated")


if __name__ == "__main__":
    main()
