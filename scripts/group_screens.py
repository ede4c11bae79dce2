"""Screenshots and report folders of the Group and Compare views, offscreen (issue 15).

    python scripts/group_screens.py OUT_DIR --runs RUNS_DIR --group NAME [--compare REPORT_DIR]

Writes OUT_DIR/group.png (the Groups tab with GROUP selected), OUT_DIR/compare.png (the Compare view of
REPORT_DIR/comparison.json written by `bert-explorer compare --out REPORT_DIR`), and the report folders
OUT_DIR/group-report/ and OUT_DIR/compare-report/ (Markdown + PNG + CSV). Prints sizes and the spread.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--runs", required=True, help="the runs folder holding .groups/<NAME>/group.json")
    ap.add_argument("--group", required=True)
    ap.add_argument("--compare", default=None, help="a `bert-explorer compare --out` folder")
    ap.add_argument("--band", choices=["minmax", "sd"], default="sd")
    a = ap.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from explorer.ui.group_tabs import CompareTab, GroupsTab

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tab = GroupsTab(a.runs)
    tab.resize(1500, 900)
    tab.show_group(a.group)
    tab.view.band_mode.setCurrentIndex(tab.view.band_mode.findData(a.band))
    tab.tree.expandAll()
    tab.show()
    app.processEvents()
    tab.grab().save(str(out / "group.png"))
    print(f"group.png {(out / 'group.png').stat().st_size // 1024} KB; {tab.view.summary.text()}")
    tab.view.export_report(out / "group-report")
    if a.compare:
        cmp_tab = CompareTab()
        cmp_tab.resize(1500, 900)
        if not cmp_tab.load_folder(a.compare):
            print(cmp_tab.status.text(), file=sys.stderr)
            return 1
        cmp_tab.show()
        app.processEvents()
        cmp_tab.view.grab().save(str(out / "compare.png"))
        print(f"compare.png {(out / 'compare.png').stat().st_size // 1024} KB; " + " / ".join(
            cmp_tab.view.comparison.count_lines()))
        cmp_tab.view.export_report(out / "compare-report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
