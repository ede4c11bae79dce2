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
    (best / "model.safetensors").write_bytes(b"weights of step 178")
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
    assert watch.button.text() == "sst2-a: best checkpoint is now step 333 · Open it again"
    qtbot.mouseClick(watch.button, Qt.MouseButton.LeftButton)
    assert reopened == [str(best)] and watch.button is None
    watch.opened(str(tmp_path / "not-a-checkpoint"))
    assert not watch.timer.isActive() and not watch.check()


def _later(path) -> None:
    """``path``'s modification time moved on, whatever the clock's grain."""
    import os

    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def test_checkpoint_json_rewritten_for_the_same_step_is_no_change_and_new_weights_are(qtbot, tmp_path):
    """At the end of a run the re-scoring rewrites checkpoints/best/checkpoint.json with the figures on all dev rows
    for the same step (its weights hard-linked or copied with their times): the pages hold those weights already,
    so no offer. Weights of another step, or the weights file replaced at the same step, are an offer."""
    from PySide6.QtWidgets import QMainWindow

    from explorer.ui.shell.checkpoint_watch import CheckpointWatch

    best = tmp_path / "runs" / "sst2_app" / "checkpoints" / "best"
    best.mkdir(parents=True)
    info, weights = best / "checkpoint.json", best / "model.safetensors"
    info.write_text(json.dumps({"step": 168, "kind": "best", "metrics": {"accuracy": 0.8}}))
    weights.write_bytes(b"weights of step 168")
    window = QMainWindow()
    qtbot.addWidget(window)
    watch = CheckpointWatch(window, lambda path: None)
    watch.opened(str(best))
    info.write_text(json.dumps({"step": 168, "kind": "best", "metrics": {"accuracy": 0.81}, "dev_rows": 872}))
    _later(info)
    assert not watch.check() and watch.button is None and watch.timer.isActive()
    weights.write_bytes(b"weights of step 168, saved again")
    _later(weights)
    assert watch.check() and watch.button.text() == "sst2_app: best checkpoint is now step 168 · Open it again"
    watch.opened(str(best))
    info.write_text(json.dumps({"step": 336, "kind": "best"}))
    assert watch.check() and "now step 336" in watch.button.text()
    assert str(best) in watch.button.toolTip()


def test_the_changed_checkpoint_offer_reads_whole_in_the_status_bar_at_1280x800(window, tmp_path):
    """The offer sits in the main window's status bar beside its other widgets and the message a finished run
    leaves there: at 1280x800 its text is not elided and the button lies in view."""
    from explorer.ui.shell.layout_check import layout_offenders, out_of_view

    best = tmp_path / "runs" / "sst2_app" / "checkpoints" / "best"
    best.mkdir(parents=True)
    (best / "checkpoint.json").write_text(json.dumps({"step": 160, "kind": "best"}))
    (best / "model.safetensors").write_bytes(b"weights of step 160")
    watch = window.checkpoint_pages.watch
    watch.opened(str(best))
    watch.timer.stop()
    (best / "checkpoint.json").write_text(json.dumps({"step": 168, "kind": "best"}))
    assert watch.check()
    window.statusBar().showMessage("sst2_app finished: accuracy 0.9128 on all 872 dev rows at step 168, the best "
                                   "checkpoint kept; 2 min of training, 41 s of evaluations")
    window.status_widgets.device_label.setText("device: CPU (1 of 2 threads: the machine is busy, load 1.6)")
    window.resize(1280, 800)
    window.show()
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    button = watch.button
    assert out_of_view(button) == ""
    assert button.text() == button.whole, button.text()
    assert not [o for o in layout_offenders(window) if "reopen_changed_checkpoint" in o.path or
                o.path.endswith(f"['{button.text()}']")]
