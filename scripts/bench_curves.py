"""How long the Curves panel takes to redraw long runs, against pyqtgraph's own downsampling (prints
figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/bench_curves.py [--runs 4] [--points 100000] [--repeats 10]
        [--profile] [--png curves.png]

Builds ``--runs`` runs of ``--points`` optimizer steps each (loss, lr, grad_norm, samples/s at every
step; dev f1 / exact_match every 1000 steps) and shows them overlaid in the real CurvesPanel
(1400 x 1000, offscreen). Times, median over ``--repeats`` (min-max):

- full redraw: show the runs (a run selection): every curve decimated, then either the event loop
  paints the plots on screen (what a user waits for) or all plots are rendered with ``grab()``. Each
  repeat shows fresh copies of the runs (new objects, values and ranges a little different), so
  nothing the panel keeps can be reused: every curve is smoothed and decimated from scratch and every
  axis laid out for a range it has not shown. The two halves are printed
  too: the selection with every curve decimated and handed to its item, and the paint after it;
- render of all plots only: a ``grab()`` with nothing changed (a resize / expose): the floor;
- live tick: one new ``step`` event per run, then the coalesced redraw, then the event loop repaints
  the plots that changed (the count is printed), or a ``grab()`` renders all of them; "staggered":
  the app's way, one plot refreshed and repainted per event-loop turn (longest turn);
- zoom (last 1000 steps) and a smoothing slider change, each + ``grab()``.

Reference, timed in the same process on the same data and plot grid: what the panel did before
(pyqtgraph's own "peak" auto-downsampling + clip-to-view, every curve given all its points with
setData on each redraw). The ratio column is reference / panel. ``--profile`` prints the top
cProfile entries of one full redraw and of 20 live ticks. ``--png`` saves the panel after a full
redraw (to compare the picture before and after a change).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TRAIN = ("loss", "lr", "grad_norm", "samples_per_second")
PAINTS = [0]   # plot repaints counted (GraphicsView.paintEvent)


def make_run(run_id: str, n: int, seed: int):
    import numpy as np

    from explorer.ui.runs.state import RunState, Series

    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1, dtype=np.float64)
    total = n + 1_000   # a live run near its end: the x axis spans 0..steps_total, the ticks stay inside
    s = RunState(run_id=run_id, status="running", steps_total=total, step=n)
    for name, y in {
        "loss": 1.0 + 4.0 * np.exp(-steps / (n / 5)) + rng.normal(0, 0.3, n) ** 2,
        "lr": 1e-4 * np.minimum(steps / (n / 10), (total - steps) / (total - n / 10)),
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


def copy_run(state, k: int = 0):
    """A new RunState with copies of ``state``'s series: other objects, and for k > 0 other values and
    ranges (y scaled by 1 + k / 100, steps_total k * 37 steps further), so that a full redraw of the
    copy can reuse nothing of an earlier one (no cached curve, axis or grid line of the same range)."""
    from explorer.ui.runs.state import RunState, Series

    out = RunState(run_id=state.run_id, status=state.status, steps_total=state.steps_total + 37 * k,
                   step=state.step)
    for name, ser in state.series.items():
        out.series[name] = Series()
        out.series[name].extend(ser.x, ser.y * (1 + k / 100))
    return out


def step_event(state) -> dict:
    return {"event": "step", "step": state.step + 1, "epoch": 1.0, "loss": 1.5, "lr": 1e-5, "grad_norm": 2.0,
            "samples_per_second": 8.0, "elapsed": 1.0}


class Reference:
    """The same plot grid drawn the way the panel did before: pyqtgraph peak auto-downsampling and
    clip-to-view, all points handed to setData on every redraw (y range from the visible points)."""

    def __init__(self, keys: list[str], size: tuple[int, int]):
        import numpy as np
        import pyqtgraph as pg
        from PySide6.QtWidgets import QGridLayout, QWidget

        from explorer.ui.curves.plot import PALETTE, PANEL_HEIGHT, y_range

        self.np, self.y_range = np, y_range
        self.host = QWidget()
        grid = QGridLayout(self.host)
        self.plots, self.items, self.palette = {}, {}, PALETTE
        for i, key in enumerate(keys):
            w = pg.PlotWidget()
            w.setFixedHeight(PANEL_HEIGHT)
            w.getPlotItem().setDownsampling(auto=True, mode="peak")
            w.getPlotItem().setClipToView(True)
            grid.addWidget(w, i // 2, i % 2)
            self.plots[key] = w
        self.host.resize(*size)
        self.host.show()

    def draw(self, runs, keys, x_range, emas) -> None:
        import pyqtgraph as pg

        np = self.np
        for key in keys:
            plot = self.plots[key].getPlotItem()
            arrays = []
            for k, s in enumerate(runs):
                ser = s.series.get(key)
                if ser is None:
                    continue
                ys = [ser.y]
                if key == "loss":
                    ys = [emas.setdefault(s.run_id, _ema()).update(ser.y, 0.6), ser.y]
                for j, y in enumerate(ys):
                    item = self.items.get((key, s.run_id, j))
                    if item is None:
                        item = self.items[(key, s.run_id, j)] = pg.PlotDataItem(
                            pen=self.palette[k % len(self.palette)], connect="finite", autoDownsampleFactor=1.5)
                        plot.addItem(item)
                        item.setDownsampling(auto=True, method="peak")
                        item.setClipToView(True)
                    item.setData(ser.x, y, skipFiniteCheck=True)
                    m = (ser.x >= x_range[0]) & (ser.x <= x_range[1])
                    arrays.append(y[m])
            plot.getViewBox().setXRange(*x_range, padding=0.02)
            rng = self.y_range(arrays, non_neg=True)
            if rng:
                plot.getViewBox().setYRange(*rng, padding=0)

    def clear(self) -> None:
        for (key, _run, _j), item in self.items.items():
            self.plots[key].getPlotItem().removeItem(item)
        self.items = {}

    def render(self) -> None:
        self.host.grab()


def _ema():
    from explorer.ui.curves.plotmath import IncrementalEMA

    return IncrementalEMA()


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def profile(fn, top: int = 14) -> str:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    return "\n".join(lines[start: start + top + 1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--profile", action="store_true", help="print the top cProfile entries (own time)")
    ap.add_argument("--png", help="save the Curves panel after a full redraw to this PNG file")
    a = ap.parse_args()
    load0 = os.getloadavg()

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    import pyqtgraph as pg

    from explorer.ui.curves.panel import CurvesPanel

    paint_event = pg.GraphicsView.paintEvent

    def counted(self, ev):
        PAINTS[0] += 1
        return paint_event(self, ev)
    pg.GraphicsView.paintEvent = counted

    w = CurvesPanel()
    w.resize(1400, 1000)
    w.show()
    app.processEvents()
    base = [make_run(f"run-{i}", a.points, i) for i in range(a.runs)]
    runs = base
    w.smooth.setValue(60)

    def render():
        w.grid_host.grab()

    def paint():   # what the app does: the event loop repaints the plots that changed (on screen)
        app.processEvents()

    def live(show=render):
        for s in runs:
            s.apply(step_event(s))
            w.run_updated(s.run_id, set(TRAIN))
        w.redraw_now()
        show()

    res = {k: [] for k in ("full", "full_paint", "full_set", "full_draw", "render", "tick", "tick_paint", "turn",
                           "zoom", "smooth")}
    painted = []
    for r in range(a.repeats):
        for key, show in (("full_paint", paint), ("full", render)):
            w.set_runs([])
            w.redraw_now()
            runs = [copy_run(s, 1 + 2 * r + (key == "full")) for s in base]   # never shown before
            for _ in range(3):
                app.processEvents()
            t0 = time.perf_counter()
            w.set_runs(runs)
            w.redraw_now()
            t1 = time.perf_counter()
            show()
            t2 = time.perf_counter()
            res[key].append((t2 - t0) * 1000)
            if key == "full_paint":
                res["full_set"].append((t1 - t0) * 1000)
                res["full_draw"].append((t2 - t1) * 1000)
        res["render"].append(timed(render))
        res["tick"].append(timed(live))
        for _ in range(3):
            app.processEvents()
        before = PAINTS[0]
        res["tick_paint"].append(timed(lambda: live(paint)))
        painted.append(PAINTS[0] - before)
        for s in runs:      # the same tick refreshed one plot per event-loop turn (the app's staggering)
            s.apply(step_event(s))
            w.run_updated(s.run_id, set(TRAIN))
        w._live_tick()
        app.processEvents()
        turns = []
        while w._pending or w._reveal:
            turns.append(timed(lambda: (w._stagger_tick(), app.processEvents())))
        res["turn"].append(max(turns or [0.0]))
        w.last_n.setValue(1000)
        res["zoom"].append(timed(lambda: (w.redraw_now(), render())))
        w.last_n.setValue(0)
        w.redraw_now()
        w.smooth.setValue(30 if r % 2 else 80)
        res["smooth"].append(timed(lambda: (w.redraw_now(), render())))
        w.smooth.setValue(60)
        w.redraw_now()

    keys = list(w._layout_keys)
    x_range = w._target_x()
    ref = Reference(keys, (w.grid_host.width(), w.grid_host.height()))
    app.processEvents()
    rres = {k: [] for k in ("full", "full_paint", "full_set", "full_draw", "render", "tick", "tick_paint")}
    for _ in range(a.repeats):
        for key, show in (("full_paint", app.processEvents), ("full", ref.render)):
            ref.clear()
            app.processEvents()
            t0 = time.perf_counter()
            ref.draw(runs, keys, x_range, {})
            t1 = time.perf_counter()
            show()
            t2 = time.perf_counter()
            rres[key].append((t2 - t0) * 1000)
            if key == "full_paint":
                rres["full_set"].append((t1 - t0) * 1000)
                rres["full_draw"].append((t2 - t1) * 1000)
        rres["render"].append(timed(ref.render))
        emas: dict = {}
        ref.draw(runs, keys, x_range, emas)
        app.processEvents()
        for key, show in (("tick", ref.render), ("tick_paint", app.processEvents)):
            def ref_live():
                for s in runs:
                    s.apply(step_event(s))
                ref.draw(runs, list(TRAIN), x_range, emas)
                show()
            rres[key].append(timed(ref_live))

    pts = sum(len(ser) for s in runs for ser in s.series.values())
    drawn = sum(len(i.xData) for p in w.panels.values() for i in list(p.items.values()) + list(p.raw_items.values())
                if i.xData is not None)
    print(f"curves: {a.runs} runs x {a.points:,} steps ({pts:,} points in {len(keys)} plots, "
          f"{sum(len(p.items) + len(p.raw_items) for p in w.panels.values())} curves, {drawn:,} points drawn), "
          f"median of {a.repeats} (min-max), ms; load average {load0[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    med = statistics.median
    print(f"  {'':44s} {'panel':>8s} {'reference':>10s} {'ratio':>6s}")
    for name, key in (("full redraw, shown plots painted", "full_paint"),
                      ("  of which selection + curves decimated, set", "full_set"),
                      ("  of which paint (event loop)", "full_draw"),
                      ("full redraw + render of all plots (grab)", "full"), ("render of all plots only", "render"),
                      ("live tick, changed plots painted", "tick_paint"),
                      ("live tick + render of all plots (grab)", "tick"),
                      ("  live tick, staggered: longest turn", "turn"), ("last-1000-steps zoom + render", "zoom"),
                      ("smoothing slider change + render", "smooth")):
        xs = res[key]
        line = f"  {name:44s} {med(xs):8.1f}"
        if key in rres:
            line += f" {med(rres[key]):10.1f} {med(rres[key]) / max(med(xs), 1e-9):5.1f}x"
        else:
            line += " " * 18
        print(line + f"   ({min(xs):.1f}-{max(xs):.1f})")
    print(f"  plots repainted per live tick (event loop): {statistics.median(painted):.0f} of {len(keys)}; "
          f"cold first full redraw (items created): {res['full_paint'][0]:.1f} ms")
    if a.png:
        w.set_runs([])
        w.redraw_now()
        runs = [copy_run(s) for s in base]
        w.set_runs(runs)
        w.redraw_now()
        app.processEvents()
        w.grab().save(a.png)
        print(f"  saved the panel after a full redraw to {a.png}")
    if a.profile:
        w.set_runs([])
        w.redraw_now()
        runs = [copy_run(s) for s in base]
        print("\nprofile, one full redraw (own time):")
        print(profile(lambda: (w.set_runs(runs), w.redraw_now(), render())))
        print("\nprofile, 20 live ticks (own time):")
        print(profile(lambda: [live() for _ in range(20)]))
    for widget in (w, ref.host):
        widget.close()
        widget.deleteLater()
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


if __name__ == "__main__":
    sys.exit(main())
