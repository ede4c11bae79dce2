"""How long the Curves panel takes to redraw long runs, against pyqtgraph's own downsampling, in one process
(prints figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/bench_curves.py [--runs 4] [--points 100000] [--repeats 10]
        [--profile] [--breakdown] [--png curves.png]

Builds ``--runs`` runs of ``--points`` optimizer steps each (loss, lr, grad_norm, samples/s at every
step; dev f1 / exact_match every 1000 steps), read as the app reads them (the smoothed loss computed as the
reader thread does: explorer.ui.curves.plotmath.prepare_curves), and shows them overlaid in the real
CurvesPanel (1400 x 1000, offscreen): the app's way ("app"). scripts/bench_curves_ab.py times the app's way
of two checkouts against each other.

Times, median over ``--repeats`` (min-max), wall clock and the process's CPU time (the CPU figure
is the one to compare on a loaded machine: other processes' turns are not in it):

- full redraw: show the runs (a run selection): every curve decimated, then either the event loop
  paints the plots on screen (what a user waits for) or all plots are rendered with ``grab()``. Each
  repeat shows fresh copies of the runs (new objects, values and ranges a little different), so
  nothing the panel keeps can be reused: every curve is smoothed and decimated from scratch and every
  axis laid out for a range it has not shown. The two halves are printed too: the selection with
  every curve decimated and handed to its item, and the paint after it;
- re-selection: the same run objects shown again after others of the same ids (the x axis stays where the
  others put it: a new grid for every curve), and again after runs of other ids (each run's own x axis: the
  grid its curves were decimated for before, whose columns are kept with the series);
- render of all plots only: a ``grab()`` with nothing changed (a resize / expose): the floor;
- live tick: one new ``step`` event per run, then the coalesced redraw, then the event loop repaints
  the plots that changed, or a ``grab()`` renders all of them; "staggered": the app's way, one plot
  refreshed and repainted per event-loop turn (longest turn);
- zoom (last 1000 steps), back to all steps, a smoothing slider change, each + ``grab()``.

Reference, timed in the same process on the same data and plot grid: pyqtgraph's own way, "peak"
auto-downsampling + clip-to-view, every curve a PlotDataItem given all its points with setData on each redraw
(:class:`Reference`). ``--profile`` prints the top cProfile entries of one full redraw and of 20 live ticks,
``--breakdown`` the CPU ms of each part of a painted full redraw (PARTS: decimation, axes, strokes...), and
``--png`` saves the panel after a full redraw.
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

    from explorer.ui.curves.plotmath import prepare_curves
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
    return prepare_curves(s)


def copy_run(state, k: int = 0):
    """A new RunState with copies of ``state``'s series: other objects, and for k > 0 other values and
    ranges (y scaled by 1 + k / 100, steps_total k * 37 steps further), so that a full redraw of the
    copy can reuse nothing of an earlier one (no cached curve, axis or grid line of the same range)."""
    from explorer.ui.curves.plotmath import prepare_curves
    from explorer.ui.runs.state import RunState, Series

    out = RunState(run_id=state.run_id, status=state.status, steps_total=state.steps_total + 37 * k,
                   step=state.step)
    for name, ser in state.series.items():
        out.series[name] = Series()
        out.series[name].extend(ser.x, ser.y * (1 + k / 100))
    return prepare_curves(out)   # as the app's reader thread does (explorer.ui.runs.store.load_run_state)


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


WAYS = ("app",)   # the Curves panel as the app draws (scripts/bench_curves_ab.py: CHECKOUT:app)
ROWS = (("full redraw, shown plots painted", "full_paint"),
        ("  of which selection + curves decimated, set", "full_set"),
        ("  of which paint (event loop)", "full_draw"),
        ("full redraw + render of all plots (grab)", "full"),
        ("re-selection (runs shown before), painted", "reselect"),
        ("  after runs of other ids, painted", "reselect_other"),
        ("render of all plots only", "render"),
        ("live tick, changed plots painted", "tick_paint"),
        ("live tick + render of all plots (grab)", "tick"),
        ("  live tick, staggered: longest turn", "turn"),
        ("last-1000-steps zoom + render", "zoom"),
        ("back to all steps + render", "unzoom"),
        ("smoothing slider change + render", "smooth"))


def timed(fn) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) of fn()."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


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


class Way:
    """The app's CurvesPanel (``name``: one of WAYS) and its timings."""

    def __init__(self, name: str, app, base):
        from explorer.ui.curves.panel import CurvesPanel

        if name not in WAYS:
            raise ValueError(f"unknown way {name!r}; this checkout draws one way: {', '.join(WAYS)}")
        self.name, self.app, self.base = name, app, base
        self.w = CurvesPanel()
        self.w.resize(1400, 1000)
        self.w.show()
        app.processEvents()
        self.w.smooth.setValue(60)
        self.runs = base
        self.others = [copy_run(s) for s in base]   # the same curves under other run ids
        for s in self.others:
            s.run_id += "-other"
        self.res: dict[str, list[tuple[float, float]]] = {k: [] for _n, k in ROWS}
        self.painted: list[int] = []
        self.full_paints: list[int] = []   # plot repaints of each painted full redraw

    def render(self) -> None:
        self.w.grid_host.grab()

    def paint(self) -> None:   # what the app does: the event loop repaints the plots that changed (on screen)
        self.app.processEvents()

    def show(self, runs) -> None:
        self.runs = runs
        self.w.set_runs(runs)
        self.w.redraw_now()

    def live(self, show=None) -> None:
        for s in self.runs:
            s.apply(step_event(s))
            self.w.run_updated(s.run_id, set(TRAIN))
        self.w.redraw_now()
        (show or self.render)()

    def repeat(self, r: int) -> None:
        w, app, res = self.w, self.app, self.res
        shown = {}
        for key, show in (("full_paint", self.paint), ("full", self.render)):
            self.show([])
            runs = shown[key] = [copy_run(s, 1 + 2 * r + (key == "full")) for s in self.base]   # never shown before
            for _ in range(3):
                app.processEvents()
            before = PAINTS[0]
            t0, c0 = time.perf_counter(), time.process_time()
            self.show(runs)
            t1, c1 = time.perf_counter(), time.process_time()
            show()
            t2, c2 = time.perf_counter(), time.process_time()
            res[key].append(((t2 - t0) * 1000, (c2 - c0) * 1000))
            if key == "full_paint":
                res["full_set"].append(((t1 - t0) * 1000, (c1 - c0) * 1000))
                res["full_draw"].append(((t2 - t1) * 1000, (c2 - c1) * 1000))
                self.full_paints.append(PAINTS[0] - before)
        for _ in range(3):
            app.processEvents()
        res["reselect"].append(timed(lambda: (self.show(shown["full_paint"]), self.paint())))
        # other runs (other ids: the panel forgets its view, each run gets its own x axis), then these again
        self.show(self.others)
        self.paint()
        res["reselect_other"].append(timed(lambda: (self.show(shown["full_paint"]), self.paint())))
        res["render"].append(timed(self.render))
        res["tick"].append(timed(self.live))
        for _ in range(3):
            app.processEvents()
        before = PAINTS[0]
        res["tick_paint"].append(timed(lambda: self.live(self.paint)))
        self.painted.append(PAINTS[0] - before)
        for s in self.runs:      # the same tick refreshed one plot per event-loop turn (the app's staggering)
            s.apply(step_event(s))
            w.run_updated(s.run_id, set(TRAIN))
        w._live_tick()
        app.processEvents()
        turns = []
        while w.model.pending or w.plot_grid.reveal:
            turns.append(timed(lambda: (w._stagger_tick(), app.processEvents()))[0])
        res["turn"].append((max(turns or [0.0]), 0.0))
        w.last_n.setValue(1000)
        res["zoom"].append(timed(lambda: (w.redraw_now(), self.render())))
        w.last_n.setValue(0)
        res["unzoom"].append(timed(lambda: (w.redraw_now(), self.render())))
        w.smooth.setValue(30 if r % 2 else 80)
        res["smooth"].append(timed(lambda: (w.redraw_now(), self.render())))
        w.smooth.setValue(60)
        w.redraw_now()

    def picture(self, runs):
        """The panel's plots after a full redraw of ``runs`` (a QImage)."""
        self.show([])
        self.show(runs)
        self.app.processEvents()
        return self.w.grid_host.grab().toImage()

    def close(self) -> None:
        self.w.close()
        self.w.deleteLater()


def reference_times(app, keys, x_range, size, runs, repeats) -> dict[str, list[tuple[float, float]]]:
    ref = Reference(keys, size)
    app.processEvents()
    rres = {k: [] for k in ("full", "full_paint", "full_set", "full_draw", "render", "tick", "tick_paint")}
    for _ in range(repeats):
        for key, show in (("full_paint", app.processEvents), ("full", ref.render)):
            ref.clear()
            app.processEvents()
            t0, c0 = time.perf_counter(), time.process_time()
            ref.draw(runs, keys, x_range, {})
            t1, c1 = time.perf_counter(), time.process_time()
            show()
            t2, c2 = time.perf_counter(), time.process_time()
            rres[key].append(((t2 - t0) * 1000, (c2 - c0) * 1000))
            if key == "full_paint":
                rres["full_set"].append(((t1 - t0) * 1000, (c1 - c0) * 1000))
                rres["full_draw"].append(((t2 - t1) * 1000, (c2 - c1) * 1000))
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
    ref.host.close()
    ref.host.deleteLater()
    return rres


PARTS = (("selection: every plot's refresh", "explorer.ui.curves.panel", "CurvesPanel", "_refresh_next"),
         ("  curves: decimation (ColumnDecimator.points)", "explorer.ui.curves.decimate", "ColumnDecimator", "points"),
         ("  curves: points handed to the items", "explorer.ui.curves.items", "FastCurve", "set_points"),
         ("  y range (apply_view)", "explorer.ui.curves.plot", "PlotPanel", "apply_view"),
         ("  x range (_set_x)", "explorer.ui.curves.panel", "CurvesPanel", "_set_x"),
         ("selection: runs, notes, flow view (set_runs)", "explorer.ui.curves.panel", "CurvesPanel", "set_runs"),
         ("selection: plot layout (_collect)", "explorer.ui.curves.panel", "CurvesPanel", "_collect"),
         ("selection: legend", "explorer.ui.curves.panel", "CurvesPanel", "_update_legend"),
         ("paint: the plots (GraphicsView.paintEvent)", "pyqtgraph", "GraphicsView", "paintEvent"),
         ("  axes (MeasuredAxis.paint)", "explorer.ui.curves.axis", "MeasuredAxis", "paint"),
         ("  curve strokes (CurveLayer.paint)", "explorer.ui.curves.items", "CurveLayer", "paint"),
         ("  grid lines (GridLines.paint)", "explorer.ui.curves.grid", "GridLines", "paint"))


def install_parts() -> dict[str, float]:
    """Time each method of PARTS with the process's CPU clock (the outermost call of a nested one counted) into
    the returned dict (label -> CPU ms). Done before any plot exists: Qt finds a Python paint override once."""
    import importlib

    acc: dict[str, float] = {}
    for label, module, cls_name, name in PARTS:
        cls = getattr(importlib.import_module(module), cls_name)

        def timed_part(*args, _fn=getattr(cls, name), _label=label, _depth=[0], **kwargs):
            _depth[0] += 1
            c = time.process_time()
            try:
                return _fn(*args, **kwargs)
            finally:
                _depth[0] -= 1
                if not _depth[0]:
                    acc[_label] = acc.get(_label, 0.0) + (time.process_time() - c) * 1000
        setattr(cls, name, timed_part)
    return acc


def breakdown(way, base, repeats: int, acc: dict[str, float]) -> dict[str, float]:
    """CPU ms per part of a painted full redraw (PARTS, timed by :func:`install_parts` into ``acc``; "total": the
    whole redraw), median over ``repeats`` redraws of fresh copies of ``base``."""
    per: dict[str, list[float]] = {label: [] for label, *_ in PARTS}
    per["total"] = []
    for k in range(repeats):
        way.show([])
        for _ in range(3):
            way.app.processEvents()
        runs = [copy_run(s, 1000 + k) for s in base]
        acc.clear()
        c = time.process_time()
        way.show(runs)
        way.paint()
        per["total"].append((time.process_time() - c) * 1000)
        for label in per:
            if label != "total":
                per[label].append(acc.get(label, 0.0))
    return {label: statistics.median(xs) for label, xs in per.items()}


def reader_cost(base) -> str:
    """What reading a run now also computes (prepare_curves, on the app's reader thread) and keeps with its
    series: CPU ms per run and MB per run, on fresh copies of ``base``."""
    from explorer.ui.curves.plotmath import prepare_curves

    copies = [copy_run(s) for s in base]
    for s in copies:
        for ser in s.series.values():
            ser.derived.clear()
    c = time.process_time()
    for s in copies:
        prepare_curves(s)
    ms = (time.process_time() - c) * 1000 / max(len(copies), 1)
    kept = sum(ema._buf.nbytes for s in copies for ser in s.series.values() if (ema := ser.derived.get("ema")))
    series = sum(ser._x.nbytes + ser._y.nbytes for s in copies for ser in s.series.values())
    return (f"reader thread, per run (smoothed loss, block extremes, curves decimated ahead): {ms:.1f} CPU ms, kept with the series: {kept / len(copies) / 1e6:.1f} MB "
            f"(the run's series buffers: {series / len(copies) / 1e6:.1f} MB)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--profile", action="store_true", help="print the top cProfile entries (own time)")
    ap.add_argument("--png", help="save the Curves panel after a full redraw to this PNG file")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the parts of a painted full redraw (CPU ms each; recorded with --results)")
    from explorer.benchmarks import add_results_argument, record

    add_results_argument(ap)
    a = ap.parse_args()
    load0 = os.getloadavg()

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    import pyqtgraph as pg

    paint_event = pg.GraphicsView.paintEvent

    def counted(self, ev):
        PAINTS[0] += 1
        return paint_event(self, ev)
    pg.GraphicsView.paintEvent = counted

    acc = install_parts() if a.breakdown else None   # a few dozen timed calls per redraw: no measurable cost
    base = [make_run(f"run-{i}", a.points, i) for i in range(a.runs)]
    main = Way(WAYS[0], app, base)
    for r in range(a.repeats):
        main.repeat(r)
    w = main.w
    keys = list(w.layout_keys)
    rres = reference_times(app, keys, w._target_x(), (w.grid_host.width(), w.grid_host.height()),
                           main.runs, a.repeats)

    pts = sum(len(ser) for s in base for ser in s.series.values())
    drawn = sum(len(i.xData) for p in w.panels.values() for i in list(p.items.values()) + list(p.raw_items.values())
                if i.xData is not None)
    print(f"curves: {a.runs} runs x {a.points:,} steps ({pts:,} points in {len(keys)} plots, "
          f"{sum(len(p.items) + len(p.raw_items) for p in w.panels.values())} curves, {drawn:,} points drawn), "
          f"median of {a.repeats} (min-max), ms; load average {load0[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    med = statistics.median
    for unit, col in (("wall clock", 0), ("CPU time of this process", 1)):
        print(f"\n  {unit}, ms{'':28s}{main.name:>11s}{'reference':>11s}"
              + (f"   reference / {main.name}" if col == 0 else ""))
        for name, key in ROWS:
            if col == 1 and key == "turn":
                continue
            value = med(x[col] for x in main.res[key])
            line = f"  {name:44s}{value:11.1f}"
            line += f"{med(x[col] for x in rres[key]):11.1f}" if key in rres else " " * 11
            if col == 0 and key in rres:
                line += f"   {med(x[0] for x in rres[key]) / max(value, 1e-9):5.1f}x"
            if col == 0:
                xs = [x[0] for x in main.res[key]]
                line += f"   ({min(xs):.1f}-{max(xs):.1f})"
            print(line)
    print(f"\n  plots repainted per live tick (event loop): {med(main.painted):.0f} of {len(keys)}; "
          f"cold first full redraw (items created): {main.res['full_paint'][0][0]:.1f} ms")
    print(f"  plots painted per painted full redraw ({len(keys)} plots): {med(main.full_paints):.0f}")
    print("  " + reader_cost(base))
    if a.png:
        main.picture([copy_run(s) for s in base]).save(a.png)
        print(f"  saved the panel after a full redraw to {a.png}")
    if a.profile:
        main.show([])
        runs = [copy_run(s) for s in base]
        print("\nprofile, one full redraw (own time):")
        print(profile(lambda: (main.show(runs), main.paint())))
        print("\nprofile, 20 live ticks (own time):")
        print(profile(lambda: [main.live(main.paint) for _ in range(20)]))
    parts = {}
    if a.breakdown:
        parts = breakdown(main, base, a.repeats, acc)
        print(f"\n  parts of a painted full redraw, CPU ms (median of {a.repeats}; total {parts.pop('total'):.1f}):")
        for label, ms in parts.items():
            print(f"    {label:48s}{ms:7.1f}")
    cpu = {key: med(x[1] for x in main.res[key]) for key in ("full_paint", "tick_paint", "reselect", "reselect_other",
                                                             "unzoom")}
    ratios = {}
    if "full_paint" in rres:
        ratios["full redraw: app's way / pyqtgraph downsampling reference (CPU)"] = cpu["full_paint"] / max(
            med(x[1] for x in rres["full_paint"]), 1e-9)
    record(a, "bench_curves", case=f"{a.runs} runs x {a.points:,} steps", ratios=ratios,
           figures={"full redraw, painted (CPU ms)": cpu["full_paint"], "live tick, painted (CPU ms)": cpu["tick_paint"],
                    "re-selection, painted (CPU ms)": cpu["reselect"],
                    "re-selection after runs of other ids, painted (CPU ms)": cpu["reselect_other"],
                    "back to all steps after a zoom + render (CPU ms)": cpu["unzoom"],
                    "longest turn of a staggered live tick (ms)": med(x[0] for x in main.res["turn"]),
                    **{f"full redraw part: {label.strip()} (CPU ms)": ms for label, ms in parts.items()}},
           load_start=load0[0])
    main.close()
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


if __name__ == "__main__":
    sys.exit(main())
