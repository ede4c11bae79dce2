"""Every page of the main window at 1280x800 and 1920x1080, filled with results, grabbed and checked.

    QT_QPA_PLATFORM=offscreen python scripts/layout_shots.py [OUT_DIR=/tmp/layout_shots] [--sizes 1280x800,1920x1080]

Builds the main window offscreen (temporary runs folder, settings and cache), fills each page the way a
person would see it after using it, with tiny random models of tests/helpers.py served by the inspector
server on a thread (tests/inspect_double.py): the launcher with the bundled SQuAD sample and its data
preview, a probe of a long passage in Attention and Spans & τ, a τ sweep, Classify and its dev set (pair model), Tag and its
dev set, a Compare report, a Predictions page. Then, at each size, shows each page, writes
OUT_DIR/<W>x<H>_<page>.png (the whole window) and prints what explorer.ui.shell.layout_check finds cut
(widgets outside their parent, elided labels, headers and cells, plots outside their view). Exit code 1
when something is cut. tests/test_layout_sizes.py runs the same filling and the same check.

The models are random, so the numbers mean nothing: this is about what fits on the screen.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

# 1264x760: what a 1280x800 screen leaves inside a typical window frame (ui/shell/screen_fit FRAME_W, FRAME_H)
SIZES = ((1280, 800), (1264, 760), (1920, 1080))
QUESTION = "where was ada born?"
PASSAGE = ("ada lovelace was born in london in 1815. she wrote the first program. " * 3).strip()
# the probe's passage: about 4,000 characters, several 384-token windows (the Attention page at 1280x800 must
# also lay out a long passage's windows, not only one short window's)
LONG_PASSAGE = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the analytical engine of charles babbage "
                        f"in london." for i in range(45))
TAGS = ["O", "B-LOC", "B-MISC", "I-MISC", "B-PER"]


def fill_pages(win, folder: Path, wait_until) -> list[str]:
    """Fill every page of ``win`` (module docstring) with tiny models' results; files go under ``folder``.

    ``wait_until(predicate, what)`` spins the event loop until ``predicate()`` holds (raises otherwise).
    Returns the titles of the tabs to visit, in order (the registry's pages, then the Predictions page).
    """
    from helpers import (tiny_loaded_model, write_tiny_classification, write_tiny_conll, write_tiny_squad)

    from explorer.core.qa.compare import compare_decodings
    from explorer.core.predict.writing import write_table
    from explorer.core.studies.reports import write_comparison_report
    from explorer.paths import SAMPLES

    win._inspector_opened = True            # no first-visit load of the bundled encoder
    launcher = win.launcher
    launcher.editors["train"].set(str(SAMPLES / "squad_v2_sample_train.json"))
    launcher.editors["dev"].set(str(SAMPLES / "squad_v2_sample_dev.json"))
    launcher.refresh_previews()
    wait_until(lambda: launcher.train_preview.result is not None and launcher.dev_preview.result is not None,
               "the launcher's data previews")

    hub = win.hub
    hub.set_model(tiny_loaded_model("qa"))
    hub.open_example(QUESTION, LONG_PASSAGE)
    wait_until(lambda: hub.result is not None and not hub.probes._outstanding, "the probe")
    dev = hub.dev_view
    squad = write_tiny_squad(folder / "squad_dev.json", v2=True, repeat=2)
    dev.run(str(squad), 0)
    wait_until(lambda: dev.study is not None, "the τ sweep")

    classify, classify_dev = win.classify_pages[0][1], win.classify_pages[1][1]
    classify.set_loaded(tiny_loaded_model("classification", num_labels=3))
    classify.kind.setCurrentIndex(1)
    classify.inputs.text_a.setText("ada was born in london.")
    classify.inputs.text_b.setText("where was ada born?")
    classify.result = None
    classify.run()
    wait_until(lambda: classify.result is not None, "Classify")
    classify_dev.path.setText(str(write_tiny_classification(folder / "pair.tsv", pair=True, repeat=2)))
    classify_dev.run()
    wait_until(lambda: classify_dev.report is not None, "Classify: dev set")

    tag, tag_dev = win.pages["Tag"], win.pages["Tag: dev set"]
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=2)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    tag.set_loaded(loaded)
    tag.sentence.setText("ada was born in london")
    tag.result = None
    tag.run()
    wait_until(lambda: tag.result is not None, "Tag")
    tag_dev.path.setText(str(write_tiny_conll(folder / "dev.conll")))
    tag_dev.run()
    wait_until(lambda: tag_dev.report is not None, "Tag: dev set")

    class Dec:
        def __init__(self, text, sd):
            self.text, self.score_diff = text, sd

        def answer(self, tau=0.0):
            return self.text if self.score_diff > tau else ""

    gold = {"q1": ["Paris"], "q2": ["Ada"], "q3": []}
    comparison = compare_decodings(
        {"q1": Dec("Paris", 1), "q2": Dec("Bob", 1), "q3": Dec("x", -1)},
        {"q1": Dec("Rome", 1), "q2": Dec("Ada Lovelace", 1), "q3": Dec("x", -1)}, gold,
        questions={"q1": "what is the capital of France?", "q2": "who wrote the first program?", "q3": "none?"},
        contexts={"q1": "Paris is the capital.", "q2": "Ada wrote.", "q3": "x"})
    win.compare_tab.load_folder(write_comparison_report(folder / "compare", comparison))

    cols = ["question", "context", "answer", "score_diff", "decision", "error"]
    rows = [{"question": f"where was person {i} born?", "context": PASSAGE, "answer": "london" if d > 0 else "",
             "score_diff": d, "decision": "answer" if d > 0 else "abstain", "error": ""}
            for i, d in enumerate([3.0, -0.2, 1.1, -4.0])]
    path = write_table(folder / "qa.predictions.csv", cols, rows)
    win.open_predictions({"out": str(path), "kind": "qa", "tau": 1.0, "input_columns": cols[:2],
                          "text_columns": ["question", "context"]})
    return [win.tabs.tabText(i) for i in range(win.tabs.count())]


def show_page(win, title: str, app) -> None:
    """Bring tab ``title`` to the front and let its layouts settle; a page other than ``title``'s still shown
    then is an error (the check would judge the wrong page)."""
    for i in range(win.tabs.count()):
        if win.tabs.tabText(i) == title:
            win.tabs.setCurrentIndex(i)
            break
    else:
        raise KeyError(title)

    def shown() -> list[str]:
        return [win.tabs.tabText(k) for k in range(win.tabs.count()) if win.tabs.widget(k).isVisible()]
    deadline = time.monotonic() + 60.0   # a page built on its first show may take more than a few event rounds
    settle(app)
    while shown() != [title] and time.monotonic() < deadline:   # on a busy machine
        time.sleep(0.02)
        settle(app)
    page = win.tabs.currentWidget()
    if win.tabs.tabText(win.tabs.indexOf(page)) != title or shown() != [title]:
        raise RuntimeError(f"asked for page {title!r}, shown: {shown()}")


def resize(win, size: tuple[int, int], app) -> None:
    """Give the window the client size ``size`` (offscreen: no frame) and let the layouts settle."""
    win.resize(*size)
    settle(app)


def settle(app, rounds: int = 6) -> None:
    """Handle pending events until the layouts are done: each round delivers the posted layout requests first
    (a layout that posts another in turn, as nested scroll areas and splitters do, takes more than one), then
    the other events, so the check never judges a layout still under way."""
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(rounds):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        app.processEvents()


def file_name(title: str) -> str:
    """A tab title as a file name part ("Spans && τ" -> "spans_tau")."""
    plain = title.replace("&&", "&").replace("τ", "tau").lower()
    return re.sub(r"[^a-z0-9]+", "_", plain).strip("_")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default="/tmp/layout_shots")
    parser.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="layout-shots-"))
    os.environ["EXPLORER_CACHE_DIR"] = str(tmp / "cache")

    from inspect_double import ThreadTransport

    from explorer.ui.inspectors import client
    client.set_transport_factory(ThreadTransport)
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.layout_check import layout_offenders, size_offenders
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    from explorer.ui.shell.style import apply_style

    app = QApplication.instance() or QApplication([])
    apply_style(app)   # the app's own look, as the window a person opens
    win = MainWindow(tmp / "runs", AppSettings(tmp / "s.ini"), probe_device=False)
    win.show()

    def wait_until(predicate, what, timeout=120.0):
        t0 = time.monotonic()
        while not predicate():
            if time.monotonic() - t0 > timeout:
                raise RuntimeError(f"timed out waiting for {what}")
            app.processEvents()
            time.sleep(0.01)

    titles = fill_pages(win, tmp, wait_until)
    cut = 0
    for size in [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]:
        resize(win, size, app)
        for title in titles:
            show_page(win, title, app)
            path = out / f"{size[0]}x{size[1]}_{file_name(title)}.png"
            win.grab().save(str(path))
            found = size_offenders(win, *size) + layout_offenders(win)
            cut += len(found)
            print(f"{path}: {len(found)} cut" + "".join(f"\n    {o}" for o in found), flush=True)
    win.manager.cancel_all()
    win.close()
    return 1 if cut else 0


if __name__ == "__main__":
    sys.exit(main())
