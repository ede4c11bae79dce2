"""The launcher's hub downloads: a run whose model is a hub id not yet in the cache waits for it, shown in the
launcher's download bar (progress, time left, Cancel), and starts once it is there.

:class:`LaunchDownload` holds the run that waits and the :class:`~explorer.ui.inspectors.download_bar.HubDownloader`
(made on the first hub id: it starts the inspector child); the launcher panel hands it a config and hears back
``ready(config)`` (launch it) or ``stopped(text, error)`` (say why it did not start).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.inspectors.download_bar import DownloadBar


class LaunchDownload(QObject):
    """The model download a launched run waits for.

    Signals:
        ready(TrainConfig): the run's model is in the cache: the run can start.
        stopped(str, bool): the download ended without it (one sentence; True for an error, False: cancelled).
    """

    ready = Signal(object)
    stopped = Signal(str, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bar = DownloadBar()
        self._downloader = None
        self.pending: TrainConfig | None = None

    def downloader(self):
        """The HubDownloader (explorer.ui.inspectors.download_bar), made on first use."""
        if self._downloader is None:
            from explorer.ui.inspectors.client import shared_client
            from explorer.ui.inspectors.download_bar import HubDownloader

            self._downloader = HubDownloader(shared_client(), self.bar, self)
            self._downloader.ready.connect(self._downloaded)
            self._downloader.stopped.connect(self._stopped)
        return self._downloader

    def needed(self, source: str) -> bool:
        """``source`` is a hub id not fetched in this session, and the app is not offline."""
        from explorer.core.hub import is_hub_id, is_offline

        if self._downloader is not None:
            return self._downloader.needed(source)
        return is_hub_id(source) and not is_offline()

    def fetch_for(self, cfg: TrainConfig) -> None:
        """Download ``cfg``'s model; ``ready(cfg)`` once it is in the cache."""
        self.pending = cfg
        self.downloader().fetch(cfg.model.strip())

    def _downloaded(self, repo_id: str) -> None:
        cfg, self.pending = self.pending, None
        if cfg is not None and cfg.model.strip() == repo_id:
            self.ready.emit(cfg)

    def _stopped(self, text: str, error: bool) -> None:
        self.pending = None
        self.bar.finish()   # the sentence goes where the launcher's problems go
        self.stopped.emit(text, error)
