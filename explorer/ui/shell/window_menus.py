"""The main window's menu bar: File (new run, open a run folder, load / save a run config, the runs folder, export),
Run (launch, the paper grid, stop early, cancel, hosts), View (the Runs dock, refresh, each tab by Ctrl+N) and
Help (getting started, shortcuts, plots, the current panel's help, about)."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from explorer.core.specs.train_config import OPEN_RUN_FOLDER_ACTION
from explorer.ui.shell.help_dialog import GETTING_STARTED, PLOTS_HELP, shortcuts_html

__all__ = ["build_menus"]


def build_menus(w) -> None:
    """Fill the menu bar of ``w`` (a MainWindow) with its menus and their shortcuts and status tips."""
    def action(menu, text, slot, shortcut=None, tip=""):
        act = QAction(text, w)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
        act.setStatusTip(tip)
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    f = w.menuBar().addMenu("&File")
    action(f, "&New run", w.new_run, QKeySequence.StandardKey.New, "Show the launcher for a new run: Time budget and Run on back to their defaults")
    action(f, "&" + OPEN_RUN_FOLDER_ACTION, w.ask_open_run, QKeySequence.StandardKey.Open,
           "Add a run folder from disk to the Runs list")
    action(f, "Load run &config…", w.launcher._ask_load, None, "Load a run config into the launcher")
    action(f, "&Save run config…", w.launcher._ask_save, QKeySequence.StandardKey.Save)
    action(f, "Change runs &folder…", w.ask_runs_dir)
    action(f, "&Export selected runs to CSV…", lambda: w.runs.export_csv_selected(), None,
           "Every selected run's scalars in one table (long or wide CSV)")
    f.addSeparator()
    action(f, "&Quit", w.close, "Ctrl+Q")
    r = w.menuBar().addMenu("&Run")
    action(r, "&Launch", w.launcher.launch, None, "Launch the form's run (Ctrl+Return in the Launch tab)")
    action(r, "Queue paper &grid", lambda: w.launcher.queue_grid())
    action(r, "&Stop early (selected)", lambda: w.runs._each_selected(w.runs.stop_requested), "Ctrl+.")
    action(r, "&Cancel (selected)", lambda: w.runs._each_selected(w.runs.cancel_requested))
    r.addSeparator()
    action(r, "&Hosts…", w.launcher.run_on.edit_hosts, "Ctrl+Shift+H",
           "Remote machines to run on over SSH (the launcher's Run on list)")
    v = w.menuBar().addMenu("&View")
    v.addAction(w.runs_dock.toggleViewAction() if hasattr(w, "runs_dock") else QAction(w))
    action(v, "&Refresh runs", w.scan_runs, "F5")
    for i in range(w.tabs.count()):
        action(v, w.tabs.tabText(i), lambda _=False, i=i: w.tabs.setCurrentIndex(i),
               f"Ctrl+{i + 1}")
    h = w.menuBar().addMenu("&Help")
    action(h, "&User guide", w.open_user_guide, None, "The user guide (docs/) in your browser")
    action(h, "&Getting started", lambda: w.show_help("Getting started", GETTING_STARTED))
    action(h, "&Keyboard shortcuts", lambda: w.show_help("Keyboard shortcuts", shortcuts_html()))
    action(h, "&Zooming and moving plots", lambda: w.show_help("Zooming and moving plots", PLOTS_HELP))
    action(h, "About this &panel", w.help_panel, "F1")
    action(h, "&About BERT Explorer", w.about)
