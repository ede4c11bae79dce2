"""The download bar: a hub repository on its way into the cache, with bytes, rate, time left and Cancel.

The download runs in the inspector child (op ``hub_download``, explorer.core.hub.fetch) as a
:class:`~explorer.ui.inspectors.remote.RemoteJob`; this widget only shows its progress events, turned into
:class:`~explorer.core.hub.DownloadProgress` by a :class:`~explorer.core.hub.RateMeter`. Cancel asks the child
to stop at its next chunk; the child leaves no half file in the cache.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from explorer.core.hub import DownloadProgress, RateMeter, is_hub_id, is_offline


class DownloadBar(QWidget):
    """Hidden until :meth:`start`; then "Downloading <repo> from <hub>", a bar in percent, a line with
    "12 MiB of 87 MiB · 4.1 MiB/s · about 18 s left" and a Cancel button.

    Signals:
        cancel_requested(): the user pressed Cancel.
    """

    cancel_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p%")
        self.detail = QLabel("")
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the download; nothing half-downloaded is kept in the cache")
        self.cancel_button.clicked.connect(self._cancel)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.detail)
        self.meter: RateMeter | None = None
        self.last: DownloadProgress | None = None
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)   # no spare height
        self.setVisible(False)

    def start(self, repo_id: str, hub: str = "") -> None:
        """Show the bar for a new download of ``repo_id`` (from ``hub``, an address, when given)."""
        self.meter = RateMeter(repo_id)
        self.last = None
        self.title.setText(f"Downloading {repo_id}" + (f" from {hub}" if hub else "") + " …")
        self.bar.setValue(0)
        self.bar.setMaximum(0)          # busy until the first bytes say how much there is
        self.detail.setText("asking the hub for the file list …")
        self.cancel_button.setEnabled(True)
        self.title.setStyleSheet("")
        for part in (self.bar, self.cancel_button, self.detail):
            part.setVisible(True)
        self.setVisible(True)

    def set_progress(self, done: int, total: int) -> DownloadProgress | None:
        """One progress event (bytes done, bytes known so far); returns what is shown."""
        if self.meter is None:
            return None
        self.last = self.meter.update(done, total)
        self.bar.setMaximum(1000)
        self.bar.setValue(int(self.last.fraction * 1000))
        self.detail.setText(self.last.text())
        return self.last

    def finish(self) -> None:
        """The download is done (the model loads next): hide the bar."""
        self.meter = None
        self.setVisible(False)

    def end(self, text: str, error: bool = False) -> None:
        """The download stopped (cancelled or failed): keep only ``text`` under the model row, in red for an
        error, until the next download or load."""
        self.meter = None
        self.bar.setVisible(False)
        self.cancel_button.setVisible(False)
        self.detail.setVisible(False)
        self.title.setStyleSheet("color:#b03030;" if error else "")
        self.title.setText(text)
        self.setVisible(True)
        self.updateGeometry()

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.detail.setText("cancelling …")
        self.cancel_requested.emit()


class HubDownloader(QObject):
    """A hub repository fetched into the cache by the inspector child (op ``hub_download``), shown in a
    :class:`DownloadBar` whose Cancel stops it. Used by the inspectors (before a load) and the launcher
    (before a run starts), so the GUI never waits on a download.

    Signals:
        ready(str): the repository is in the cache (its id).
        stopped(str, bool): the download ended without it: one sentence, and True for an error (False: cancelled).
    """

    ready = Signal(str)
    stopped = Signal(str, bool)

    def __init__(self, client, bar: DownloadBar, parent=None):
        super().__init__(parent)
        from .remote import RemoteJob

        self.bar = bar
        self.job = RemoteJob(client, self)
        self.repo_id: str | None = None            # the one on its way
        self.done: set[str] = set()                # fetched in this session
        self.job.progress.connect(bar.set_progress)
        self.job.finished.connect(self._finished)
        self.job.failed.connect(self._failed)
        self.job.cancelled.connect(self._cancelled)
        bar.cancel_requested.connect(self.job.cancel)

    def needed(self, source: str) -> bool:
        """True for an ``owner/name`` hub id not fetched yet in this session, when not offline (offline, the
        load itself uses the cached copy or says there is none)."""
        return is_hub_id(source) and not is_offline() and source.strip() not in self.done

    @property
    def running(self) -> bool:
        return self.job.running

    def fetch(self, repo_id: str, repo_type: str = "model") -> int:
        """Start fetching ``repo_id`` (a running fetch of the same id is kept); returns the request id."""
        import os

        if self.job.running and self.repo_id == repo_id:
            return self.job._job
        self.repo_id = repo_id
        self.bar.start(repo_id, os.environ.get("HF_ENDPOINT", ""))
        return self.job.start("hub_download", {"repo_id": repo_id, "repo_type": repo_type})

    def _finished(self, _folder) -> None:
        repo_id, self.repo_id = self.repo_id, None
        self.bar.finish()
        if repo_id:
            self.done.add(repo_id)
            self.ready.emit(repo_id)

    def _failed(self, message: str, _tb: str) -> None:
        self.repo_id = None
        text = message.split(": ", 1)[-1] if message.startswith("HubError") else message
        self.bar.end(text, error=True)
        self.stopped.emit(text, True)

    def _cancelled(self) -> None:
        repo_id, self.repo_id = self.repo_id, None
        text = f"Download of {repo_id} cancelled; nothing half-downloaded was kept."
        self.bar.end(text)
        self.stopped.emit(text, False)
