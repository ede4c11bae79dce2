"""Long jobs' progress line: rows done, the time left at the measured rate, Cancel; the Classify: dev set page
shows it while scoring and never leaves the previous table beside a new request."""

import numpy as np
import pytest

from explorer.ui.inspectors.components.rows_meter import RowsMeter


def test_time_left_is_the_rows_left_at_the_measured_rate():
    clock = [100.0]
    meter = RowsMeter("dev rows", now=lambda: clock[0])
    meter.start()
    assert meter.text() == "starting …"
    clock[0] = 130.0                    # loading the model and reading the file: not counted
    meter.update(32, 2478)
    assert meter.seconds_left() is None and meter.text() == "32 of 2,478 dev rows"
    clock[0] = 140.0
    meter.update(432, 2478)             # 400 rows in 10 s: 40 rows/s
    assert meter.seconds_left() == pytest.approx((2478 - 432) / 40.0)
    assert meter.text() == "432 of 2,478 dev rows · about 0:51 left"


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
