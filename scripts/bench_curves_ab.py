"""The Curves full redraw of two checkouts (or commits), each way timed alone in its own process, the processes
taking turns: the figure to compare the app before and after a change (prints figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/bench_curves_ab.py /path/to/old:app /path/to/new:app
        [--runs 4] [--points 100000] [--repeats 20] [--rounds 3]

Each ``CHECKOUT:WAY`` is a source tree whose ``scripts/bench_curves.py`` has the way WAY (its WAYS table;
the app's way of that tree). A child process per round and checkout imports that tree (PYTHONPATH), builds
``--runs`` runs of ``--points`` steps with its bench_curves.make_run, shows them once, then times
``--repeats`` full redraws of fresh copies (show no runs, then the copies, then the event loop paints): CPU
and wall ms of the selection and of the paint, median. scripts/bench_curves.py times its ways in one process,
where the axes' caches (label sizes, draw specs and ticks of a range and length) are shared by all the ways'
plots: there a way can find the x axis of a new range laid out by the way timed before it; alone, it cannot.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CHILD = r"""
import json, os, statistics, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import bench_curves as bc
from PySide6.QtWidgets import QApplication
app = QApplication([])
way, runs, points, repeats = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
base = [bc.make_run(f"run-{i}", points, i) for i in range(runs)]
w = bc.Way(way, app, base)
w.repeat(0)
out = []
for k in range(repeats):
    copies = [bc.copy_run(s, 3 + k) for s in base]
    def go():
        w.show([])
        for _ in range(3):
            app.processEvents()
        t0, c0 = time.perf_counter(), time.process_time()
        w.show(copies)
        c1 = time.process_time()
        w.paint()
        t2, c2 = time.perf_counter(), time.process_time()
        out.append(((c1 - c0) * 1000, (c2 - c1) * 1000, (c2 - c0) * 1000, (t2 - t0) * 1000))
    getattr(w, "_with_options", lambda fn: fn())(go)   # older checkouts time each way inside its options
print("RESULT " + json.dumps(out))
"""


def run_one(tree: str, way: str, a) -> list[tuple[float, float, float, float]]:
    env = dict(os.environ, PYTHONPATH=tree, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", CHILD, tree, way, str(a.runs), str(a.points), str(a.repeats)],
                          capture_output=True, text=True, env=env, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"{tree}:{way} failed:\n{proc.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sides", nargs="+", help="CHECKOUT:WAY, e.g. ../main:app")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    a = ap.parse_args()
    load0 = load_average()
    sides = [tuple(s.rsplit(":", 1)) for s in a.sides]
    if any(len(s) != 2 for s in sides):
        ap.error("each side is CHECKOUT:WAY")
    med = statistics.median
    print(f"Curves full redraw, {a.runs} runs x {a.points:,} steps, {a.repeats} redraws a process, {a.rounds} rounds; "
          "ms, median of each process: CPU selection / CPU paint / CPU total (wall total)")
    totals: dict[tuple, list[float]] = {s: [] for s in sides}
    for r in range(a.rounds):
        for tree, way in sides:
            load = os.getloadavg()[0]
            res = run_one(tree, way, a)
            cols = [med(x[i] for x in res) for i in range(4)]
            totals[(tree, way)].append(cols[2])
            print(f"  round {r + 1}, load {load:4.1f}  {tree}:{way:6s} {cols[0]:6.1f} / {cols[1]:6.1f} / {cols[2]:6.1f}"
                  f"   ({cols[3]:6.1f})")
    first = med(totals[sides[0]])
    print("  median over rounds, CPU total: " + ", ".join(
        f"{t}:{w} {med(v):.1f} ({first / max(med(v), 1e-9):.2f}x)" for (t, w), v in totals.items()))
    names = [f"{Path(t).name}:{w}" for t, w in sides]
    record(a, "bench_curves_ab", case=f"{a.runs} runs x {a.points:,} steps, full redraw",
           ratios={f"{names[0]} / {n} (CPU)": first / max(med(totals[s]), 1e-9) for n, s in zip(names[1:], sides[1:])},
           figures={f"{n} (CPU ms)": med(totals[s]) for n, s in zip(names, sides)}, load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
