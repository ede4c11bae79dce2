"""How long the Curves panel takes to redraw with long runs (prints figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/bench_curves.py [--runs 4] [--points 100000] [--repeats 10]

Builds ``--runs`` runs of ``--points`` optimizer steps each (loss, lr, grad_norm, samples/s at every
step; dev f1 / exact_match every 1000 steps), shows them overlaid in a CurvesPanel (1400 x 1000,
peak downsampling + clip-to-view), and times, median over ``--repeats``:

- full: setData of every curve + EMA smoothing + one render of all plots (a run selection, done at once);
- render: one render of all plots with nothing changed (a resize / expose);
- live tick: 10 new steps on each run, then the coalesced redraw + render of all plots at once;
  "staggered": the app's way, one plot refreshed and repainted per event-loop turn (longest turn);
- zoom: last 1000 steps window + render;
- smoothing: moving the smoothing slider (EMA over every loss curve) + render.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def make_run(run_id: str, n: int, seed: int):
    import numpy as np

    from explorer.ui.run_state import RunState, Series

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    s = RunState(run_id=run_id, status="running", steps_total=n, step=n)
    for name, y in {
        "loss": 1.0 + 4.0 * np.exp(-steps / (n / 5)) + rng.normal(0, 0.3, n) ** 2,
        "lr": 1e-4 * np.minimum(steps / (n / 10), (n - steps) / (0.9 * n)),
        "grad_norm": np.abs(rng.normal(3, 1, n)),
        "samples_per_second": 8 + rng.normal(0, 0.5, n),
    }.items():
        ser = Series()
        ser.extend(steps, y)
        s.series[name] = ser
    ev_steps = steps[999::1000]
    for name, y in {"dev/f1": 20 + 50 * (1 - np.exp(-ev_steps / (n / 4))),
                    "dev/exact_match": 10 + 45 * (1 - np.exp(-ev_steps / (n / 4)))}.items():
        ser = Series()
        ser.extend(ev_steps, y)
        s.series[name] = ser
    return s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=10)
    a = ap.parse_args()

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from explorer.ui.curves import CurvesPanel

    w = CurvesPanel()
    w.resize(1400, 1000)
    w.show()
    app.processEvents()
    runs = [make_run(f"run-{i}", a.points, i) for i in range(a.runs)]

    def render():
        w.grid_host.grab()

    def timed(fn) -> float:
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1000

    full, plain, tick, zoom, smooth, turn = [], [], [], [], [], []
    for r in range(a.repeats):
        w.set_runs([])
        full.append(timed(lambda: (w.set_runs(runs), w.redraw_now(), render())))
        plain.append(timed(render))
        step0 = runs[0].step

        def live():
            for s in runs:
                for k in range(1, 11):
                    s.apply({"event": "step", "step": s.step + 1, "epoch": 1.0, "loss": 1.5, "lr": 1e-5,
                             "grad_norm": 2.0, "samples_per_second": 8.0, "elapsed": 1.0})
                w.run_updated(s.run_id, {"loss", "lr", "grad_norm", "samples_per_second"})
            w.redraw_now()
            render()
        tick.append(timed(live))
        assert runs[0].step == step0 + 10

        # what the app does: the same tick, refreshed one plot per event-loop turn (longest turn)
        for s in runs:
            s.apply({"event": "step", "step": s.step + 1, "epoch": 1.0, "loss": 1.5, "lr": 1e-5,
                     "grad_norm": 2.0, "samples_per_second": 8.0, "elapsed": 1.0})
            w.run_updated(s.run_id, {"loss", "lr", "grad_norm", "samples_per_second"})
        w._live_tick()
        app.processEvents()
        turns = []
        while w._pending or w._reveal:
            turns.append(timed(lambda: (w._stagger_tick(), app.processEvents())))
        turn.append(max(turns or [0.0]))
        w.last_n.setValue(1000)
        zoom.append(timed(lambda: (w.redraw_now(), render())))
        w.last_n.setValue(0)
        w.redraw_now()
        w.smooth.setValue(30 if r % 2 else 80)
        smooth.append(timed(lambda: (w.redraw_now(), render())))

    pts = sum(len(ser) for s in runs for ser in s.series.values())
    print(f"curves: {a.runs} runs x {a.points:,} steps ({pts:,} points in {len(w.panels)} plots, "
          f"{sum(len(p.items) + len(p.raw_items) for p in w.panels.values())} curves), "
          f"median of {a.repeats} (min-max), ms:")
    for name, xs in (("full redraw (setData all + render)", full), ("render only", plain),
                     ("live tick (+10 steps/run, redraw)", tick),
                     ("  same, staggered: longest turn", turn), ("last-1000-steps zoom", zoom),
                     ("smoothing slider change", smooth)):
        print(f"  {name:38s} {statistics.median(xs):8.1f}   ({min(xs):.1f}-{max(xs):.1f})")
    w.close()
    w.deleteLater()
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


if __name__ == "__main__":
    sys.exit(main())
