"""The GUI thread's CPU time of the first evaluation's flow view: shown and painted for the first time, with
and without the Curves prewarm rendering it while hidden (each case in its own fresh process, alternated).

    QT_QPA_PLATFORM=offscreen python scripts/bench_flow_first_show.py [--pairs 3] [--results]

A shown CurvesPanel (1400 x 1000) is prewarmed as the main window does after its first paint; then the timed
part: ``show_flow(True)`` (what a first evaluation with watched questions does), the event-loop turn, and one
paint of the view (``grab()``). "cold" stubs out FlowOverTraining.prewarm. The GUI thread's CPU time
(time.thread_time) is the figure: other processes' turns are not in it. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one(case: str) -> float:
    """Run in the child: the timed first show; prints and returns the GUI thread's CPU ms."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtWidgets import QApplication

    from explorer.ui.curves.flow_training import FlowOverTraining
    from explorer.ui.curves.panel import CurvesPanel

    app = QApplication.instance() or QApplication([])
    if case == "cold":
        FlowOverTraining.prewarm = lambda self, width: None
    panel = CurvesPanel()
    panel.resize(1400, 1000)
    panel.show()
    app.processEvents()
    panel.prewarm()
    app.processEvents()
    c0 = time.thread_time()
    panel.curves_split.show_flow(True, panel.height())
    app.processEvents()
    panel.flow_view.grab()
    ms = (time.thread_time() - c0) * 1000
    print(f"{ms:.2f}")
    return ms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--child", choices=("warm", "cold"), help=argparse.SUPPRESS)
    sys.path.insert(0, str(ROOT))
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    if args.child:
        one(args.child)
        return 0
    load0 = load_average()
    times: dict[str, list[float]] = {"warm": [], "cold": []}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(args.pairs):
        for case in ("cold", "warm"):
            out = subprocess.run([sys.executable, __file__, "--child", case], capture_output=True, text=True,
                                 env=env, check=True).stdout.split()
            times[case].append(float(out[-1]))
    cold, warm = statistics.median(times["cold"]), statistics.median(times["warm"])
    print(f"first show + paint of the flow view, GUI thread CPU ms, median of {args.pairs}: without prewarm "
          f"{cold:.1f} ({times['cold']}), with {warm:.1f} ({times['warm']}); load {os.getloadavg()[0]:.1f}")
    record(args, "bench_flow_first_show", case="first evaluation's flow view, 1400 x 1000 Curves panel",
           figures={"without prewarm, GUI CPU (ms)": cold, "with prewarm, GUI CPU (ms)": warm},
           ratios={"with / without prewarm": warm / cold}, load_start=load0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
