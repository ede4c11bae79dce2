"""Long jobs' progress line: rows done, the time left at the measured rate, Cancel; the Classify: dev set page
shows it while scoring and never leaves the previous table beside a new request."""

import numpy as np
import pytest

from explorer.ui.inspectors.components.job_meter import BYTES, JobMeter


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
