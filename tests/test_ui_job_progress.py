"""Long jobs' progress line: rows done, the time left at the measured rate, Cancel; the Classify: dev set page
shows it while scoring and never leaves the previous table beside a new request."""

import threading

import numpy as np
import pytest

from explorer.ui.inspectors.components.job_meter import BYTES, JobMeter
from explorer.ui.inspectors.job_bar import is_veiled


def test_time_left_is_the_rows_left_at_the_measured_rate():
    clock = [100.0]
    meter = JobMeter(what="dev rows", now=lambda: clock[0])
    meter.start()
    assert meter.text() == "starting …"
    clock[0] = 130.0                    # loading the model and reading the file: not counted
    meter.update(32, 2478)
    assert meter.seconds_left() is None and meter.text() == "32 of 2,478 dev rows · estimating …"
    clock[0] = 135.0
    meter.update(232, 2478)             # one batch measured: not yet a rate to promise a time by
    assert meter.seconds_left() is None and meter.text().endswith("estimating …")
    clock[0] = 140.0
    meter.update(432, 2478)             # 400 rows in 10 s: 40 rows/s
    assert meter.seconds_left() == pytest.approx((2478 - 432) / 40.0)
    assert meter.text() == "432 of 2,478 dev rows · about 0:51 left"


def test_meter_counts_bytes_unknown_totals_and_a_job_that_starts_over():
    clock = [0.0]
    meter = JobMeter(what=BYTES, now=lambda: clock[0])
    meter.start()
    for t, done in ((1, 0), (2, 2 ** 20), (3, 2 * 2 ** 20)):
        clock[0] = t
        meter.update(done, 10 * 2 ** 20)
    assert meter.text() == "2.0 MiB of 10 MiB · about 0:08 left"
    texts = JobMeter(what="texts", now=lambda: clock[0])
    texts.start()
    texts.update(1200, 0)
    assert texts.text() == "1,200 texts"          # no total: no "of", no estimate
    runs = JobMeter(what="steps", now=lambda: clock[0])
    runs.start()
    for t, done in ((0, 0), (10, 100), (20, 200)):
        clock[0] = t
        runs.update(done, 1000, head="2 of 5 fold runs done")
    assert runs.text() == "2 of 5 fold runs done · about 1:20 left"
    clock[0] = 30
    runs.update(50, 1000)                # fewer done than before: a new measurement
    assert runs.rate() is None


class _Client:
    """The inspector child's side, held in the test: requests are answered by hand."""

    def __init__(self):
        self.requests, self.cancelled = [], []

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        self.requests.append((op, data, on_done, on_error, on_progress))
        return len(self.requests)

    def cancel(self, rid):
        self.cancelled.append(rid)


def test_classify_dev_page_shows_progress_cancels_and_veils_the_old_table(qtbot, tmp_path):
    from explorer.core.classify.dev_report import dev_report
    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    client = _Client()
    loaded = type("L", (), {"slot": "classify", "source": "", "model": None})()
    view = ClassifyDevView(lambda: loaded, lambda: "single", client=client)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    z = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 0.0]])
    view.show_report(dev_report(z, [0, 1, 1], ["a", "b", "c"], None, n=3), "single")
    assert view.confusion.rowCount() == 2
    view.path.setText(str(tmp_path / "dev.tsv"))
    view.run()
    assert view.confusion.rowCount() == 0 and view.report is None      # the old table is gone, not mixed in
    assert view.job_bar.isVisible()
    op, data, _done, on_error, on_progress = client.requests[-1]
    assert op == "classify_dev"
    on_progress(32, 2478)
    assert "32 of 2,478 dev rows" in view.job_bar.detail.text()
    view.job_bar.grab().save(str(tmp_path / "classify_dev_progress.png"))
    view.job_bar.cancel_button.click()
    assert client.cancelled == [1]
    on_error(REPLY_CANCELLED, "")
    assert not view.job_bar.isVisible() and "cancelled" in view.status.text()


def _grab(widget, tmp_path, name: str) -> None:
    """The page at 1280x800 as the user sees it mid-job (kept in the test's tmp folder)."""
    widget.resize(1280, 800)
    widget.grab().save(str(tmp_path / f"{name}.png"))


def test_tag_dev_set_cancels_between_batches_in_the_child_and_clears_the_old_report(qtbot, tmp_path, monkeypatch):
    """The real child op with a tiny model: its batches keep reporting until the cancel reaches the op's hook
    between two batches; the page then shows no report (the one shown before the request was cleared)."""
    from helpers import tag_pages, tiny_tagger, write_tiny_conll

    import explorer.core.tagging.forward as forward

    def endless_batches(model, tokenizer, sentences, *, max_seq_length=128, batch_size=32, progress=None):
        for _ in range(100_000):   # a batch per turn until the cancel stops it (the op's hook raises)
            progress(1, 4)
            threading.Event().wait(0.005)
        raise AssertionError("the cancel never reached the op")
    view, dev = tag_pages(qtbot)
    loaded = tiny_tagger()
    view.set_loaded(loaded)
    dev.path.setText(str(write_tiny_conll(tmp_path / "dev.txt")))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    assert dev.types.rowCount() > 0
    monkeypatch.setattr(forward, "word_logits", endless_batches)
    dev.show()
    dev.run()
    assert dev.report is None and dev.types.rowCount() == 0 and dev.job_bar.isVisible()
    qtbot.waitUntil(lambda: "1 of 4 windows" in dev.job_bar.detail.text(), timeout=30000)
    _grab(dev, tmp_path, "tag_dev_progress")
    dev.job_bar.cancel_button.click()
    assert dev.job_bar.detail.text() == "cancelling …"
    qtbot.waitUntil(lambda: not dev.job_bar.isVisible(), timeout=30000)
    assert "cancelled" in dev.status.text() and dev.report is None and dev.types.rowCount() == 0


def test_tau_study_shows_progress_cancels_and_veils_the_study_shown(qtbot, tmp_path):
    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.inspectors.dev_view import DevTauView

    client = _Client()
    view = DevTauView(cache_dir=tmp_path / "cache", client=client)
    qtbot.addWidget(view)
    view.show()
    view.loaded = type("L", (), {"slot": "qa", "source": "tiny", "path": ""})()
    before = view.study = object()             # a study of an earlier run, shown
    (tmp_path / "dev.json").write_text("{}", encoding="utf-8")
    assert view.run(str(tmp_path / "dev.json"))
    assert is_veiled(view.results) and view.job_bar.isVisible()   # faint, and deaf to clicks, until replaced
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "study"
    on_progress(64, 1200)
    assert view.job_bar.detail.text() == "64 of 1,200 windows · estimating …"
    _grab(view, tmp_path, "tau_dev_progress")
    view.job_bar.cancel_button.click()
    assert client.cancelled == [1] and "cancelling" in view.status.text()
    on_error(REPLY_CANCELLED, "")
    assert not view.job_bar.isVisible() and view.run_button.isEnabled()
    assert view.study is before and not is_veiled(view.results)   # the study of its own request, whole again


def test_embeddings_show_progress_cancel_and_never_keep_the_old_map(qtbot, tmp_path):
    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.inspectors.embeddings_view import EmbeddingsView

    client = _Client()
    page = EmbeddingsView(client=client)
    qtbot.addWidget(page)
    page.show()
    page.summary = object()                   # an embedding of another corpus, shown
    page.plot.scatter.setData(pos=np.zeros((3, 2)))
    page.corpus.setText(str(tmp_path / "corpus.txt"))
    page.mode.setCurrentText("sentences")
    page.embed()
    assert page.summary is None and len(page.plot.scatter.data) == 0 and page.job_bar.isVisible()
    assert is_veiled(page.plot)                          # veiled while the job runs
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "embed"
    on_progress(160, 2000)
    assert page.job_bar.detail.text().startswith("160 of 2,000 texts")
    _grab(page, tmp_path, "embeddings_progress")
    page.job_bar.cancel_button.click()
    assert client.cancelled == [1]
    on_error(REPLY_CANCELLED, "")
    assert not page.job_bar.isVisible() and page.embed_button.isEnabled()
    assert not is_veiled(page.plot)                      # the veil of a running job is gone


def test_predict_dialog_shows_rows_and_time_left_and_cancels(qtbot, tmp_path):
    from explorer.ui.inspectors.predictions_view import PredictDialog

    client = _Client()
    dialog = PredictDialog("model-dir", client=client)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.data_edit.setText(str(tmp_path / "new.csv"))
    dialog.out_edit.setText(str(tmp_path / "new.predictions.csv"))
    dialog.start()
    assert dialog.job_bar.isVisible() and dialog.job_bar.detail.text() == "starting …"
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "predict"
    on_progress(0, 24783)
    on_progress(640, 24783)
    assert dialog.job_bar.detail.text() == "640 of 24,783 rows · estimating …"
    _grab(dialog, tmp_path, "predict_progress")
    dialog.job_bar.cancel_button.click()
    assert client.cancelled == [1] and dialog.job_bar.detail.text() == "cancelling …"
    on_progress(640, 24783)                     # the child's last report: the rows in the file
    assert dialog.job_bar.detail.text() == "cancelling …"
    on_error("cancelled", "")
    assert not dialog.job_bar.isVisible() and dialog.status.text().startswith("Cancelled: 640 rows run are kept")


class _Driver:
    """The run queue's side of a group: cancels are recorded and end the run at once."""

    def __init__(self, store):
        self.store, self.cancelled = store, []

    def cancel(self, run_id):
        self.cancelled.append(run_id)
        self.store.get(run_id).status = "cancelled"
        self.store.ended(run_id, "cancelled")

    def stop_early(self, run_id):
        pass


def test_a_group_queued_here_shows_its_runs_and_cancel_keeps_the_runs_that_ended(qtbot, tmp_path):
    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.state import RunState

    store = RunStore(tmp_path)
    bridge = StoreBridge(store)
    driver = _Driver(store)
    ids = [f"fold{k}" for k in range(5)]
    for run_id in ids:
        store.add(RunState(run_id=run_id, status="queued", steps_total=100), driver=driver)
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.show()
    tab.follow_group("cv-tweets", ids, bridge)
    assert tab.group_bar.isVisible()
    assert tab.group_bar.detail.text().startswith("0 of 5 runs of cv-tweets done")
    store.get("fold0").status = "finished"
    store.ended("fold0", "finished")
    store.get("fold1").status, store.get("fold1").step = "running", 50
    store.changed("fold1")
    assert tab.group_bar.detail.text().startswith("1 of 5 runs of cv-tweets done")
    assert tab.group_bar.bar.value() == 300     # one run and a half of five
    _grab(tab, tmp_path, "group_progress")
    tab.group_bar.cancel_button.click()
    assert driver.cancelled == ["fold2", "fold3", "fold4", "fold1"]   # queued first; the finished run untouched
    assert store.get("fold0").status == "finished" and not tab.group_bar.isVisible()
    assert "cancelled: 1 ended runs kept" in tab.message.text()


def test_the_group_progress_row_follows_the_selected_group_else_the_newest_running(qtbot, tmp_path):
    """Two groups queued here: the row shows the group selected in the Groups page, and the newest running group
    when the selected one is not running; Cancel stops the group shown."""
    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.state import RunState

    store = RunStore(tmp_path)
    bridge = StoreBridge(store)
    driver = _Driver(store)
    for run_id in ("a1", "a2", "b1", "b2", "b3"):
        store.add(RunState(run_id=run_id, status="queued", steps_total=100), driver=driver)
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.show()
    tab.follow_group("older", ["a1", "a2"], bridge)
    tab.follow_group("newer", ["b1", "b2", "b3"], bridge)
    assert tab.group_bar.detail.text().startswith("0 of 3 runs of newer done")   # none selected: the newest
    tab.show_group("older")                          # selected in the Groups page
    assert tab.group_bar.detail.text().startswith("0 of 2 runs of older done")
    tab.show_group("not-queued-here")                # a group not running: the newest running one
    assert tab.group_bar.detail.text().startswith("0 of 3 runs of newer done")
    tab.show_group("older")
    tab.group_bar.cancel_button.click()
    assert driver.cancelled == ["a1", "a2"]          # the group shown, not the newest
    assert tab.group_bar.detail.text().startswith("0 of 3 runs of newer done")   # the one still running


def test_a_groups_time_left_comes_from_its_members_clocks_not_the_rate_of_its_first_seconds():
    """Two restarts of a 1-minute Time budget: while the first is setting up, the group's rate of shares would put
    hours on the clock; the members' own time left (a budget knows its end) and a member's duration give the
    time left instead; before the first member's step rate is measured, its budget less its elapsed time is its time
    left (not "estimating …" for the first minute of a 1-minute group)."""
    from explorer.ui.runs.group_progress import GroupProgress
    from explorer.ui.runs.state import RunState

    budget = {"time_budget_minutes": 1.0}
    first = RunState(run_id="r1", status="running", config=budget, started_at=None)
    second = RunState(run_id="r2", status="queued", config=budget)
    states = {"r1": first, "r2": second}
    group = GroupProgress(name="g", run_ids=["r1", "r2"], state_of=states.get)
    assert group.seconds_left() == 60.0 + 60.0   # not trained a second yet: its budget, then one member like it
    first.elapsed = 15.0                          # set-up under way, no step rate yet
    assert group.seconds_left() == 45.0 + 60.0
    first.elapsed = 0.0
    unbudgeted = RunState(run_id="r3", status="running", config={}, started_at=None)
    assert GroupProgress(name="h", run_ids=["r3"], state_of={"r3": unbudgeted}.get).seconds_left() is None
    first.step, first.elapsed, first.train_seconds = 5, 30.0, 10.0   # 20 s of set-up, 10 s of its minute trained
    left = first.eta()
    assert left is not None and 45 < left < 60    # the 50 s of budget left (evaluations not timed yet)
    assert group.seconds_left() == left + (first.live_elapsed() + left)   # itself, then one member like it
    first.status, first.duration = "finished", 80.0
    second.status, second.step, second.elapsed, second.train_seconds = "running", 2, 25.0, 5.0
    assert group.seconds_left() == second.eta()   # nothing queued: the running member's own time left


def test_out_of_fold_predictions_of_a_cv_group_show_progress_and_cancel(qtbot, tmp_path):
    from types import SimpleNamespace

    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.groups.tabs import GroupsTab

    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    tab.show()
    tab.folds.client = client = _Client()
    group = SimpleNamespace(kind="cv", name="cv-tweets")
    tab.folds.start(group, [SimpleNamespace(status="finished")] * 5, None)
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "cv_oof" and tab.oof_bar.isVisible()
    on_progress(4956, 24783)
    assert tab.oof_bar.detail.text().startswith("4,956 of 24,783 held-out rows")
    tab.oof_bar.cancel_button.click()
    assert client.cancelled == [1]
    on_error(REPLY_CANCELLED, "")
    assert not tab.oof_bar.isVisible() and "cancelled" in tab.message.text()
    assert "cv-tweets" not in tab.folds.started         # selecting the group again continues


def test_layer_probes_show_probe_fits_and_cancel(qtbot, tmp_path):
    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.inspectors.layer_probes_view import LayerProbesView

    client = _Client()
    page = LayerProbesView(client=client)
    qtbot.addWidget(page)
    page.show()
    page.model.setText("runs/sst2/checkpoints/best")
    page.run_probes()
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "layer_probes" and page.job_bar.isVisible() and not page.run_button.isEnabled()
    on_progress(3, 78)
    assert page.job_bar.detail.text() == "3 of 78 probe fits · estimating …"
    page.job_bar.cancel_button.click()
    assert client.cancelled == [1]
    on_error(REPLY_CANCELLED, "")
    assert not page.job_bar.isVisible() and page.run_button.isEnabled() and page.study is None


def test_explain_veils_the_previous_explanation_until_the_new_one_replaces_it(qtbot, tmp_path):
    from explorer.core.protocol.frames import REPLY_CANCELLED
    from explorer.ui.inspectors.explain_view import ExplainView

    client = _Client()
    page = ExplainView(client=client)
    qtbot.addWidget(page)
    page.show()
    page.loaded = type("L", (), {"source": "tiny", "head_initialised": False})()
    page.text_a.setText("ada was born in london")
    page.explain()
    op, _data, _done, on_error, on_progress = client.requests[-1]
    assert op == "explain" and page.job_bar.isVisible()
    assert is_veiled(page.text) and is_veiled(page.bars)
    on_progress(2, 10)
    assert page.job_bar.detail.text().startswith("2 of 10 batches")
    page.job_bar.cancel_button.click()
    assert client.cancelled == [1]
    on_error(REPLY_CANCELLED, "")
    assert not page.job_bar.isVisible() and page.run_button.isEnabled()
    assert is_veiled(page.text)                          # what is shown is of the previous inputs: still faint


class _FakeRemoteJob:
    """A hub download that reports the bytes the test gives it (no child process, no network)."""

    def __init__(self):
        from PySide6.QtCore import QObject, Signal

        class Signals(QObject):
            progress = Signal(object, object)
            finished = Signal(object)
            failed = Signal(str, str)
            cancelled = Signal()

        self.signals = Signals()
        self.progress, self.finished = self.signals.progress, self.signals.finished
        self.failed, self.cancelled = self.signals.failed, self.signals.cancelled
        self.running, self.asked_to_cancel, self._job = False, False, 0

    def start(self, op, args):
        self.running, self._job = True, self._job + 1
        return self._job

    def cancel(self):
        self.asked_to_cancel = True


def test_hub_download_shows_bytes_time_left_and_cancels_like_every_long_job(qtbot, monkeypatch):
    from explorer.ui.inspectors.download_bar import DownloadBar, HubDownloader
    from explorer.ui.inspectors.job_bar import JobBar

    bar = DownloadBar()
    qtbot.addWidget(bar)
    assert isinstance(bar.job, JobBar)
    clock = [0.0]
    bar.meter.now = lambda: clock[0]
    job = _FakeRemoteJob()
    monkeypatch.setattr("explorer.ui.inspectors.remote.RemoteJob", lambda client, parent: job)
    downloads = HubDownloader(object(), bar)
    downloads.fetch("test-org/tiny-qa")
    assert not bar.isHidden() and "Downloading test-org/tiny-qa" in bar.title.text()
    assert bar.detail.text() == "starting …"
    for t, done in ((1, 0), (2, 2 ** 20), (3, 2 * 2 ** 20)):
        clock[0] = t
        job.progress.emit(done, 10 * 2 ** 20)
    assert bar.detail.text() == "2.0 MiB of 10 MiB · about 0:08 left"
    with qtbot.waitSignal(downloads.stopped) as stopped:
        bar.cancel_button.click()
        assert job.asked_to_cancel and bar.detail.text() == "cancelling …"
        job.cancelled.emit()
    assert stopped.args == ["Download of test-org/tiny-qa cancelled; nothing half-downloaded was kept.", False]
    assert bar.bar.isHidden() and bar.title.text().startswith("Download of test-org/tiny-qa cancelled")
