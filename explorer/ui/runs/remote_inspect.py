"""Opening a checkpoint of a run on a remote host in the inspectors: on the host, or a local copy.

:class:`RemoteCheckpointOpener` asks (:class:`InspectChoiceDialog`), unless the settings remember a choice
for the host (AppSettings.inspect_choice; changed in the Hosts dialog or by the dialog's "Remember"):

* "host": the shared inspector client runs its child on the host over SSH
  (InspectClient.set_place with explorer.core.remote.ssh.inspector_argv; the same protocol, arrays as
  from the local child), and the page loads the checkpoint by its path there;
* "fetch": the checkpoint folder is fetched (explorer.core.remote.fetch.fetch_checkpoint, on a worker
  thread, with a progress dialog and Cancel; a current copy fetched earlier is reused), then opened here.

:meth:`RemoteCheckpointOpener.prepare` does the same for an op on several checkpoints (Compare two classifiers).

``place_changed(text)`` says which for the status bar ("Inspecting on lab (GPU: ...)", "Inspecting a local
copy of lab:…/best"; "" once a local checkpoint is inspected on this machine again).
"""

from __future__ import annotations

import json
import posixpath
import threading
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QDialog, QLabel, QProgressDialog, QPushButton, QVBoxLayout

from explorer.core.remote.hosts import RemoteRun
from explorer.core.remote.on_host import remember_on_host
from explorer.core.runs.layout import config_file
from explorer.ui.inspectors.components.job_meter import BYTES, JobMeter
from explorer.ui.shell.screen_fit import keep_on_screen

ON_HOST, FETCH = "host", "fetch"


def short_remote(run: RemoteRun, remote_path: str) -> str:
    """``lab:…/best``: the host and the checkpoint folder's last part (the status bar's short form)."""
    return f"{run.host.name}:…/{posixpath.basename(remote_path.rstrip('/'))}"


class InspectChoiceDialog(QDialog):
    """Inspect on the host, or fetch the checkpoint and inspect it here; ``chosen(choice, remember)``."""

    chosen = Signal(str, bool)

    def __init__(self, run: RemoteRun, remote_path: str, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        host, name = run.host.name, posixpath.basename(remote_path.rstrip("/"))
        self.setWindowTitle(f"Open a checkpoint of {host}")
        text = QLabel(f"This run trained on {host}; its checkpoint {name} is there ({remote_path}).\n\n"
                      f"Inspect it on {host} (the inspectors compute there, on its GPU if it has one; nothing "
                      f"is copied), or fetch a copy and inspect it on this machine (the copy is reused next "
                      f"time).")
        text.setWordWrap(True)
        self.on_host_btn = QPushButton(f"Inspect on {host}")
        self.fetch_btn = QPushButton(f"Fetch checkpoints/{name} and inspect here")
        self.remember = QCheckBox(f"Remember for {host} (change it in Run on → Hosts…)")
        self.remember.setChecked(False)   # asked again until the user says so: a failing choice is not repeated
        cancel = QPushButton("Cancel")
        lay = QVBoxLayout(self)
        lay.addWidget(text)
        lay.addWidget(self.on_host_btn)
        lay.addWidget(self.fetch_btn)
        lay.addWidget(self.remember)
        lay.addWidget(cancel, 0, Qt.AlignmentFlag.AlignRight)
        self.on_host_btn.clicked.connect(lambda: self._choose(ON_HOST))
        self.fetch_btn.clicked.connect(lambda: self._choose(FETCH))
        cancel.clicked.connect(self.reject)
        self.setMinimumWidth(460)

    def _choose(self, choice: str) -> None:
        self.accept()
        self.chosen.emit(choice, self.remember.isChecked())


class RemoteCheckpointOpener(QObject):
    """Opens remote checkpoints for a main window (see the module docstring).

    ``client_getter()``: the shared InspectClient; ``open_here(path, run_config)``: the window's way to open
    a local checkpoint folder; ``open_on_host(path, task, run_config)``: to open a checkpoint path of the host
    with a known task (the pages load it in the inspector child, which then runs there).
    """

    place_changed = Signal(str)
    message = Signal(str)

    def __init__(self, settings, client_getter: Callable, open_here: Callable[[str, dict], None],
                 open_on_host: Callable[[str, str | None, dict], None], window=None):
        super().__init__(window)
        self.window = window   # the parent of the dialogs (a QWidget, or None)
        self.settings = settings
        self.client_getter = client_getter
        self.open_here = open_here
        self.open_on_host = open_on_host
        self.dialog: InspectChoiceDialog | None = None
        self.progress: QProgressDialog | None = None
        self.place = ""
        self._gpus: dict[str, str] = {}   # host name -> "GPU: ..." / "CPU", once asked

    # ---- the choice -------------------------------------------------------------------------
    def open(self, run: RemoteRun, remote_path: str) -> None:
        """Open ``remote_path`` (a checkpoint folder of ``run`` on its host) as remembered, else ask."""
        self._ask(run, remote_path, lambda choice: self._go(run, remote_path, choice))

    def _ask(self, run: RemoteRun, remote_path: str, then: Callable[[str], None]) -> None:
        """``then(choice)`` with the choice remembered for the run's host, else the one the dialog gives (and
        remembers when its box is ticked); nothing on Cancel."""
        choice = self.settings.inspect_choice(run.host.name)
        if choice:
            then(choice)
            return
        self.dialog = InspectChoiceDialog(run, remote_path, self.window)

        def chosen(choice: str, remember: bool) -> None:
            if remember:
                self.settings.set_inspect_choice(run.host.name, choice)
            then(choice)
        self.dialog.chosen.connect(chosen)
        self.dialog.open()

    def prepare(self, items: list[tuple[RemoteRun | None, str]], done: Callable[[list[str]], None]) -> None:
        """Make checkpoints usable by one inspector op (Compare two classifiers), asking as :meth:`open` does.

        ``items``: (the remote run holding it or None for a local folder, the checkpoint path) each. No remote
        one: the inspectors run here and ``done(paths)`` at once. Else the first remote run's host decides:
        "host" (when every checkpoint is on that one host) moves the inspector child there and gives the host
        paths; otherwise ("fetch", or checkpoints on several machines) each remote checkpoint is fetched (or
        its current copy reused) and ``done`` gets the local copies, in the order of ``items``. Cancel in the
        dialog, a cancelled or failed fetch: ``done`` is not called (the failure is in ``message``)."""
        paths = [str(p) for _run, p in items]
        remote = [(i, run, str(p)) for i, (run, p) in enumerate(items) if run is not None]
        if not remote:
            self.inspect_here()
            done(paths)
            return
        first = remote[0][1]

        def go(choice: str) -> None:
            one_host = len(remote) == len(items) and len({run.host.name for _i, run, _p in remote}) == 1
            if choice == ON_HOST and one_host:
                from explorer.core.remote.ssh import inspector_argv

                for _i, run, _p in remote:
                    remember_on_host(run)
                self.client_getter().set_place(inspector_argv(first.host), first.host.name)
                self._set_place(self._on_host_text(first.host.name))
                done(paths)
                return

            def fetch_next(k: int) -> None:
                if k == len(remote):
                    self.inspect_here()
                    done(paths)
                    return
                i, run, path = remote[k]

                def got(local: str) -> None:
                    paths[i] = local
                    fetch_next(k + 1)
                self.fetch(run, path, on_fetched=got)
            fetch_next(0)
        self._ask(first, remote[0][2], go)

    def _go(self, run: RemoteRun, remote_path: str, choice: str) -> None:
        if choice == ON_HOST:
            self.inspect_on_host(run, remote_path)
        else:
            self.fetch(run, remote_path)

    def run_config(self, run: RemoteRun) -> dict:
        """The run's config as the local mirror holds it ({} when unreadable)."""
        try:
            return json.loads(config_file(run.local_dir).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    # ---- on the host ------------------------------------------------------------------------
    def inspect_on_host(self, run: RemoteRun, remote_path: str) -> None:
        """Move the shared inspector child to the host (ssh) and open the checkpoint by its path there."""
        from explorer.core.remote.ssh import inspector_argv

        host = run.host
        remember_on_host(run)   # the pages name its dev file as launched here, and read the host's copy
        self.client_getter().set_place(inspector_argv(host), host.name)
        config = self.run_config(run)
        self.open_on_host(remote_path, config.get("task"), config)
        self._set_place(self._on_host_text(host.name))
        if host.name not in self._gpus:
            from explorer.core.remote.check import host_gpus
            from explorer.ui.shell.threads import start_worker

            def known(gpus: list | None) -> None:
                if gpus is None:
                    return
                names = list(dict.fromkeys(g.split(",")[0].strip() for g in gpus))   # "NVIDIA H200, 143771 MiB"
                count = f"{len(gpus)} GPUs" if len(gpus) > 1 else "GPU"
                self._gpus[host.name] = f"{count}: {', '.join(names)}" if gpus else "CPU"
                if self.place.startswith(f"Inspecting on {host.name}"):
                    self._set_place(self._on_host_text(host.name))
            start_worker(host_gpus, host, on_done=known, on_error=lambda msg, tb: None)

    def _on_host_text(self, name: str) -> str:
        device = self._gpus.get(name)
        return f"Inspecting on {name}" + (f" ({device})" if device else "")

    # ---- a local copy -----------------------------------------------------------------------
    def fetch(self, run: RemoteRun, remote_path: str, on_fetched: Callable[[str], None] | None = None) -> None:
        """Fetch (or reuse) the checkpoint folder on a worker thread, with a progress dialog and Cancel;
        then open the local copy here (``on_fetched(local_path)`` instead when given)."""
        from explorer.core.errors import Cancelled
        from explorer.core.remote.fetch import fetch_checkpoint
        from explorer.ui.shell.threads import launch, prepare_worker

        where = short_remote(run, remote_path)
        stop = threading.Event()
        dlg = QProgressDialog(f"Fetching {where} …", "Cancel", 0, 1000, self.window)
        dlg.setWindowTitle("Fetching a checkpoint")
        dlg.setMinimumWidth(460)
        keep_on_screen(dlg)   # its label changes with the transfer: the dialog stays inside the screen
        dlg.setMinimumDuration(0)
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        dlg.setValue(0)
        dlg.canceled.connect(stop.set)   # checked between files and while scp copies one
        self.progress = dlg
        holder: dict = {}
        meter = JobMeter(what=BYTES)   # the bytes and the time left at the measured rate, as every long job
        meter.start()

        def progress(done: int, total: int) -> None:
            meter.update(done, total)
            dlg.setValue(int(1000 * meter.fraction()) if total else 1000)
            dlg.setLabelText(f"Fetching {where}: {meter.text()}")

        def fetched(result) -> None:
            dlg.close()
            self.progress = None
            how = "the copy fetched earlier is current" if result.reused else f"fetched {result.bytes / 1e6:.1f} MB"
            if on_fetched is not None:
                self.message.emit(f"Using a local copy of {where} ({how}: {result.path})")
                on_fetched(str(result.path))
                return
            config = self.run_config(run)
            self.open_here(str(result.path), config)
            self._set_place(f"Inspecting a local copy of {where}")
            self.message.emit(f"Inspecting a local copy of {where} ({how}: {result.path})")

        def failed(msg: str, _tb: str) -> None:
            dlg.close()
            self.progress = None
            self.message.emit(f"Cannot fetch {where}: {msg}")

        def run_fetch():
            try:
                return fetch_checkpoint(run, remote_path, lambda d, t: holder["w"].report(d, t), stop.is_set)
            except Cancelled:
                return None

        def done(result) -> None:
            if result is None:
                dlg.close()
                self.progress = None
                self.message.emit(f"Fetching {where} cancelled; nothing was opened")
                return
            fetched(result)

        worker = prepare_worker(run_fetch, on_done=done, on_error=failed, on_progress=progress)
        holder["w"] = worker
        dlg.show()
        launch(worker)

    # ---- this machine -----------------------------------------------------------------------
    def inspect_here(self) -> None:
        """A local checkpoint: the inspector child runs on this machine again."""
        client = self.client_getter()
        if client.place_argv:
            client.set_place(None)
        self._set_place("")

    def _set_place(self, text: str) -> None:
        self.place = text
        self.place_changed.emit(text)
