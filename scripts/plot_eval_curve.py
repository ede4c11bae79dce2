"""A run's dev metric against its training minutes, as a PNG (the README's time-to-quality curves).

    QT_QPA_PLATFORM=offscreen python scripts/plot_eval_curve.py RUN_DIR --metric f1 --out docs/images/x.png \
        [--title "CoNLL-2003 dev entity F1"] [--scale 100] [--goal 85]

Reads RUN_DIR/events.jsonl through the run store (explorer.core.runs.reading.load_run): each ``eval`` event's
metric, placed at the training minutes of the last ``step`` event before it (``train_seconds``: the run's
own clock, evaluations not counted). Draws it with pyqtgraph offscreen, with an optional dashed goal line,
and prints the points.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def eval_points(run_dir: Path, metric: str) -> list[tuple[float, int, float]]:
    """(training minutes, step, metric value) of every eval event of the run, in order."""
    from explorer.core.runs.reading import load_run

    run = load_run(run_dir)
    minutes, points = 0.0, []
    for ev in run.events:
        if ev.get("event") == "step" and ev.get("train_seconds") is not None:
            minutes = float(ev["train_seconds"]) / 60
        elif ev.get("event") == "eval" and metric in (ev.get("metrics") or {}):
            points.append((minutes, int(ev.get("step", 0)), float(ev["metrics"][metric])))
    return points


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--metric", default="f1")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--scale", type=float, default=100.0, help="multiply values (100: shares as percent)")
    ap.add_argument("--label", default="", help="the y axis (default: the metric's name)")
    ap.add_argument("--goal", type=float, default=None, help="a dashed horizontal line at this value")
    a = ap.parse_args(argv)
    points = eval_points(a.run_dir, a.metric)
    if not points:
        print(f"error: {a.run_dir} has no eval event with {a.metric!r}", file=sys.stderr)
        return 2
    import pyqtgraph as pg
    import pyqtgraph.exporters
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    plot = pg.PlotWidget(background="w")
    plot.resize(720, 360)
    plot.setTitle(a.title or f"{a.run_dir.name}: dev {a.metric}", color="#222")
    plot.setLabel("bottom", "training minutes (2-core CPU)")
    plot.setLabel("left", (a.label or a.metric) + (" (%)" if a.scale == 100 else ""))
    xs = [m for m, _, _ in points]
    ys = [v * a.scale for _, _, v in points]
    plot.plot(xs, ys, pen=pg.mkPen("#1f77b4", width=2), symbol="o", symbolSize=6, symbolBrush="#1f77b4")
    if a.goal is not None:
        plot.addLine(y=a.goal, pen=pg.mkPen("#d62728", width=1, style=pg.QtCore.Qt.PenStyle.DashLine))
    plot.showGrid(x=True, y=True, alpha=0.25)
    app.processEvents()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    pyqtgraph.exporters.ImageExporter(plot.getPlotItem()).export(str(a.out))
    for m, step, v in points:
        print(f"{m:6.2f} min  step {step:5d}  {a.metric} {v * a.scale:.2f}")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
