"""Screenshots and report folders of run groups and two-checkpoint comparisons, offscreen.

    python scripts/group_screens.py OUT_DIR --runs RUNS_DIR --group NAME [--compare REPORT_DIR] [--band sd]

Opens the real main window on RUNS_DIR (temp settings), waits for the Runs dock to list the runs, selects
the row of group NAME there (one expandable row, members below it), which shows the group in the Groups
tab, and writes OUT_DIR/group.png (the whole window). With --compare (a `bert-explorer compare --out`
folder) it loads REPORT_DIR/comparison.json into the Compare tab: OUT_DIR/compare.png (the questions page),
then double-clicks the top disagreement and waits until both checkpoints have probed it: OUT_DIR/
compare_pair.png (Spans & τ, A | B). Also writes the report folders OUT_DIR/group-report/ and
OUT_DIR/compare-report/ (Markdown + PNG + CSV) and prints what it saw (spread, counts, the pair's decisions).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))


def _group_shot(drv, out: Path, name: str, band: str, max_kb: int) -> None:
    win = drv.win
    drv.wait_until(lambda: not win.runs.loading and name in win.runs.model.group_names, 60,
                   f"group {name} in the Runs dock")
    tab = win.groups_tab
    win.runs.select_group(name)
    drv.wait_until(lambda: tab.view.group is not None and tab.view.group.name == name, 60, f"group {name} read")
    tab.view.band_mode.setCurrentIndex(tab.view.band_mode.findData(band))
    drv.wait(0.5)
    w, h, size = drv.grab(out / "group.png", max_kb)
    dock_row = win.runs.model.group_index(name)
    print(f"group.png {w}x{h} {size // 1024} KB; dock row: "
          + " | ".join(str(win.runs.model.data(dock_row.siblingAtColumn(c)) or "") for c in range(3)))
    print(f"  {tab.view.summary.text()}")
    tab.view.export_report(out / "group-report")


def _compare_shots(drv, out: Path, folder: str, max_kb: int, timeout: float) -> int:
    win = drv.win
    tab = win.compare_tab
    win.tabs.setCurrentWidget(tab)
    if not tab.load_folder(folder):
        print(tab.status.text(), file=sys.stderr)
        return 1
    drv.wait(0.5)
    w, h, size = drv.grab(out / "compare.png", max_kb)
    c = tab.view.comparison
    print(f"compare.png {w}x{h} {size // 1024} KB; " + " / ".join(c.count_lines()))
    tab.view.export_report(out / "compare-report")
    if not tab.view.rows:
        print("no disagreement to open side by side")
        return 0
    tab.view.table.selectRow(0)
    t0 = time.monotonic()
    tab.view.table.cellDoubleClicked.emit(0, 1)
    pair = tab.pair
    drv.wait_until(lambda: all(v.result is not None for v in pair.views) or "Cannot" in pair.status.text(),
                   timeout, "both checkpoints to probe the question")
    drv.wait(0.5)
    w, h, size = drv.grab(out / "compare_pair.png", max_kb)
    print(f"compare_pair.png {w}x{h} {size // 1024} KB after {time.monotonic() - t0:.1f} s; "
          f"{pair.status.text() or 'probed'}")
    for head in pair.headers:
        print("  " + head.text().replace("<b>", "").replace("</b>", ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--runs", required=True, help="the runs folder holding .groups/<NAME>/group.json")
    ap.add_argument("--group", required=True)
    ap.add_argument("--compare", default=None, help="a `bert-explorer compare --out` folder")
    ap.add_argument("--band", choices=["minmax", "sd"], default="sd")
    ap.add_argument("--max-kb", type=int, default=300, help="scale each PNG down until it is under this size")
    ap.add_argument("--dock-width", type=int, default=560, help="width of the Runs dock in pixels")
    ap.add_argument("--timeout", type=float, default=300, help="seconds to wait for the side-by-side probe")
    a = ap.parse_args(argv)
    from screenshots import AppDriver

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        drv = AppDriver(a.runs, Path(tmp) / "settings.ini", size=(1900, 980))
        try:
            from PySide6.QtCore import Qt

            drv.win.runs_dock.setMinimumWidth(a.dock_width)   # the names, status and mean ± sd unelided
            drv.wait(0.3)
            drv.win.resizeDocks([drv.win.runs_dock], [a.dock_width], Qt.Orientation.Horizontal)
            drv.win._inspector_opened = True   # these shots never need the inspectors' first-visit model
            _group_shot(drv, out, a.group, a.band, a.max_kb)
            if a.compare:
                return _compare_shots(drv, out, a.compare, a.max_kb, a.timeout)
        finally:
            drv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
