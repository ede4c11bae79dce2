"""The download bar: a hub repository on its way into the cache, shown as every long job of the GUI is: a
:class:`~explorer.ui.inspectors.job_bar.JobBar` counted in bytes ("12 MiB of 87 MiB · about 0:18 left") with
Cancel, under a title naming the repository.

The download runs in the inspector child (op ``hub_download``, explorer.core.hub.fetch) as a
:class:`~explorer.ui.inspectors.remote.RemoteJob`; this widget only shows its progress events. Cancel asks the
child to stop at its next chunk; the child leaves no half file in the cache.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.core.hub import is_hub_id, is_offline

from .components.job_meter import BYTES
from .job_bar import JobBar


class DownloadBar(QWidget):
    """Hidden until :meth:`start`; then "Downloading <repo> from <hub> …" over a JobBar in bytes with Cancel.
    ``bar``, ``detail`` and ``cancel_button`` are the JobBar's.

    Signals:
        cancel_requested(): the user pressed Cancel.
    """

    cancel_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.job = JobBar(BYTES, cancel_tip="Stop the download; nothing half-downloaded is kept in the cache")
        self.bar, self.detail, self.cancel_button = self.job.bar, self.job.detail, self.job.cancel_button
        self.job.cancel_requested.connect(self.cancel_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.job)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)   # no spare height
        self.setVisible(False)

    @property
    def meter(self):
        """The JobMeter that measures the download (bytes done, rate, time left)."""
        return self.job.meter

    def start(self, repo_id: str, hub: str = "") -> None:
        """Show the bar for a new download of ``repo_id`` (from ``hub``, an address, when given); busy until the
        first bytes say how much there is."""
        self.title.setText(f"Downloading {repo_id}" + (f" from {hub}" if hub else "") + " …")
        self.title.setStyleSheet("")
        self.job.start()
        self.bar.setVisible(True)
        self.setVisible(True)

    def set_progress(self, done: int, total: int) -> None:
        """One progress event: ``done`` bytes of the ``total`` known so far."""
        if self.job.running:
            self.job.set_progress(done, total)

    def finish(self) -> None:
        """The download is done (the model loads next): hide the bar."""
        self.job.finish()
        self.setVisible(False)

    def end(self, text: str, error: bool = False) -> None:
        """The download stopped (cancelled or failed): keep only ``text`` under the model row, in red for an
        error, until the next download or load."""
        self.job.finish()
        self.bar.setVisible(False)
        self.title.setStyleSheet("color:#b03030;" if error else "")
        self.title.setText(text)
        self.setVisible(True)
        self.updateGeometry()


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
