"""The checkpoint opened last from the Runs list reaches the other model pages that have no model of their own
(explorer/ui/inspectors/components/offered_checkpoint.py): Explain and Layer probes get its path and its run's task
or label without a load, Explain loads it when first shown, and a page whose model the person chose keeps it."""

from __future__ import annotations

import json

import pytest
from helpers import save_tiny_model, write_tiny_conll

from explorer.ui.inspectors.components.offered_checkpoint import CheckpointOffer, OfferedCheckpoint


def test_the_rule_takes_an_empty_box_or_its_own_offer_and_loads_once():
    offer = CheckpointOffer()
    assert offer.takes("", has_model=False)
    assert not offer.takes("", has_model=True)                 # a model loaded or loading is the page's own
    assert not offer.takes("runs/mine/checkpoints/best", has_model=False)   # typed by the person
    offer.fill("runs/a/checkpoints/best")
    assert offer.takes(" runs/a/checkpoints/best ", has_model=False)        # the previous offer gives way
    assert not offer.due("runs/typed-over")                     # the box no longer holds the offer: no load
    offer.fill("runs/b/checkpoints/best")
    assert offer.due("runs/b/checkpoints/best") and not offer.due("runs/b/checkpoints/best")   # once


def _run(tmp_path, name: str, task: str, head: str = "classification", **config) -> str:
    run = tmp_path / "runs" / name
    folder = save_tiny_model(run / "checkpoints" / "best", head, seed=3)
    (run / "config.json").write_text(json.dumps({"task": task, "model": "tiny", **config}), encoding="utf-8")
    return str(folder)


@pytest.fixture
def window(qtbot, tmp_path):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w._inspector_opened = True      # no first-visit load of the QA pages' bundled model
    return w


def test_a_classifier_opened_in_classify_fills_explain_and_layer_probes_and_loads_on_the_first_visit(
        qtbot, window, tmp_path):
    path = _run(tmp_path, "pair-run", "pair")
    explain, probes = window.pages["Explain"], window.pages["Layer probes"]
    window.open_checkpoint(path)
    assert window.tabs.currentWidget() is window.pages["Classify"]
    assert explain.source.text() == path and explain.current_task() == "pair"   # the run's task, not SQuAD
    assert explain.loaded is None and not explain.loading                       # nothing loaded in the background
    assert "loads when this page is shown" in explain.status.text()
    assert probes.model.text() == path and probes.labels.currentData() == "sentences"
    with qtbot.waitSignal(explain.model_changed, timeout=30_000):
        window.show_page("Explain")
    assert explain.loaded is not None and explain.current_task() == "pair"
    assert not explain.text_b.isHidden()                                      # a pair: both texts
    window.show_page("Classify")
    window.show_page("Explain")
    assert not explain.loading                                                  # a second visit loads nothing


def test_a_page_built_after_the_open_gets_the_offer_too(qtbot, window, tmp_path):
    path = _run(tmp_path, "tagger-run", "ner", head="token_classification",
                dev=str(write_tiny_conll(tmp_path / "dev.conll")))
    assert window.pages.built("Explain") is None and window.pages.built("Layer probes") is None
    window.open_checkpoint(path)
    assert window.tabs.currentWidget() is window.pages["Tag"]
    explain, probes = window.pages["Explain"], window.pages["Layer probes"]   # built now
    assert explain.source.text() == path and explain.current_task() == "ner" and explain.loaded is None
    assert probes.model.text() == path and probes.labels.currentData() == "tokens"
    assert probes.data.text() == str(tmp_path / "dev.conll")                  # the run's dev file, as given


def test_a_model_the_person_chose_is_kept_and_a_newer_offer_replaces_an_older_one(qtbot, window, tmp_path):
    first, second = _run(tmp_path, "one", "single"), _run(tmp_path, "two", "pair")
    explain, probes = window.pages["Explain"], window.pages["Layer probes"]
    probes.model.setText("runs/mine/checkpoints/best")          # typed by the person
    window.open_checkpoint(first)
    assert explain.source.text() == first and probes.model.text() == "runs/mine/checkpoints/best"
    window.open_checkpoint(second)                              # not shown in between: the newer one replaces it
    assert explain.source.text() == second and explain.current_task() == "pair" and explain.loaded is None
    with qtbot.waitSignal(explain.model_changed, timeout=30_000):
        window.show_page("Explain")
    window.open_checkpoint(first)                               # Explain has its own model now
    assert explain.source.text() == second and explain.current_task() == "pair"


def test_a_bare_encoder_is_offered_to_no_page(qtbot, window, tmp_path):
    folder = tmp_path / "encoder"
    folder.mkdir()
    (folder / "config.json").write_text('{"architectures": ["BertForMaskedLM"]}', encoding="utf-8")
    window.pages["Explain"]
    window.checkpoint_pages.open_in_page(str(folder), None, None, {})
    assert window.pages["Explain"].source.text() == ""
    assert window.checkpoint_pages.latest == OfferedCheckpoint(path=str(folder), head=None, task=None)


def test_a_checkpoint_saved_again_after_it_was_opened_is_said_with_a_button_that_opens_it_again(qtbot, tmp_path):
    """A run replaces checkpoints/best after the pages loaded it (a better evaluation; at the end of a run the
    re-scoring copies the final step there seconds before "finished"): the pages would go on showing the old
    weights as the run's best. The watch shows a status-bar button naming the new step; its click opens the
    checkpoint again and the button goes. A folder that is no run's checkpoint is not watched."""
    import json
    import os

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMainWindow

    from explorer.core.runs.layout import checkpoint_stamp
    from explorer.ui.shell.checkpoint_watch import CheckpointWatch

    best = tmp_path / "runs" / "sst2-a" / "checkpoints" / "best"
    best.mkdir(parents=True)
    info = best / "checkpoint.json"
    info.write_text(json.dumps({"step": 178, "kind": "best"}))
    window = QMainWindow()
    qtbot.addWidget(window)
    reopened = []
    watch = CheckpointWatch(window, reopened.append)
    watch.opened(str(best))
    assert watch.timer.isActive() and not watch.check() and watch.button is None
    info.write_text(json.dumps({"step": 333, "kind": "best"}))
    stat = info.stat()
    os.utime(info, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))   # a later save, whatever the clock's grain
    assert checkpoint_stamp(best)[0] == 333
    assert watch.check() and not watch.timer.isActive()
    assert watch.button.text() == "checkpoints/best of sst2-a changed since it was opened (now step 333): Open it again"
    qtbot.mouseClick(watch.button, Qt.MouseButton.LeftButton)
    assert reopened == [str(best)] and watch.button is None
    watch.opened(str(tmp_path / "not-a-checkpoint"))
    assert not watch.timer.isActive() and not watch.check()
