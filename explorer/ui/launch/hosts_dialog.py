"""The Hosts dialog and the launcher's "Run on" picker (hosts: explorer.core.remote.hosts).

The dialog edits the host list kept in the settings (add, edit, remove; the SSH alias field offers the
aliases of ``~/.ssh/config``) and "Check host" shows what explorer.core.remote.check found there (Python,
bert-explorer, GPUs, free disk, or the one sentence of what is wrong). No password is ever asked: the
system's OpenSSH client authenticates with the user's keys and agent. "SLURM login node" makes the host
submit its runs with sbatch (partition, GPUs per job, time limit, extra #SBATCH lines:
explorer.core.remote.hosts.SlurmOptions; the script is shown before each submission, sbatch_dialog).
When $HOME/.ssh/config exists but ssh reads another file (the passwd home's), one line says so and "Use it"
makes every ssh / scp of the app read it (``-F``; remembered in AppSettings.ssh_config;
$EXPLORER_SSH_CONFIG still wins).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QPushButton,
                               QSpinBox, QVBoxLayout, QWidget)

from explorer.core.remote.check import HostCheck, check_host, gpu_range
from explorer.core.remote.hosts import (SSH_CONFIG_ENV, Host, SlurmOptions, configured_port, home_ssh_config,
                                       ssh_aliases, ssh_config_path, unread_home_sentence, use_ssh_config)
from explorer.ui.shell.click_through_completer import ClickThroughCompleter
from explorer.ui.shell.threads import start_worker
from explorer.ui.shell.screen_fit import keep_on_screen

THIS_MACHINE = "This machine"
# fields left empty take Host's default, shown as the grey placeholder (real text that looked grey got typed onto)
NEW_HOST_HINT = "type an SSH alias from your ssh config, or user@host"
DEFAULTED = {"python": Host.python, "runs_dir": Host.runs_dir}
INSPECT_CHOICES = (("Ask each time", ""), ("Inspect on the host", "host"),
                   ("Fetch a copy and inspect here", "fetch"))   # AppSettings.inspect_choice values


class HostsDialog(QDialog):
    """Edit the remote hosts; ``hosts`` is the edited list, saved to the settings on OK (``saved``)."""

    saved = Signal()
    checked = Signal(object)   # HostCheck, when a check finished

    def __init__(self, settings, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle("Remote hosts")
        self.settings = settings
        self.hosts: list[Host] = list(settings.hosts())
        self.list = QListWidget()
        self.list.setMinimumWidth(170)
        add, self.remove_btn = QPushButton("Add"), QPushButton("Remove")
        self.fields = {name: QLineEdit() for name in ("name", "target", "key", "python", "runs_dir")}
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("from the SSH config")   # with its port once read (_read_port)
        self._port_reads = 0   # reads of that port begun; only the latest one is shown
        self.port.setToolTip("0: the port ssh takes from its config for this host (ssh -G), shown in brackets")
        self.inspect = QComboBox()   # how its runs' checkpoints open in the inspectors (AppSettings.inspect_choice)
        for text, choice in INSPECT_CHOICES:
            self.inspect.addItem(text, choice)
        self.inspect.setToolTip("Opening a checkpoint of a run on this host: run the inspectors on the host over "
                                "SSH, or fetch the checkpoint folder and inspect the copy here.")
        self._inspect = {id(h): settings.inspect_choice(h.name) for h in self.hosts}
        self._tried: set[int] = set()   # hosts whose SSH host was typed in, checked or saved: their problems are red
        self.fields["target"].setPlaceholderText("an alias of ~/.ssh/config, or user@host")
        self.fields["key"].setPlaceholderText("empty: the SSH config's key or your agent")
        self.fields["python"].setPlaceholderText(f"empty: {DEFAULTED['python']} (or ~/venv/bin/python)")
        self.fields["runs_dir"].setPlaceholderText(f"empty: {DEFAULTED['runs_dir']}")
        self.aliases = QLabel("")
        self.aliases.setWordWrap(True)
        use_ssh_config(settings.ssh_config() or None)   # the remembered choice, as the app applies it at start
        self.config_note = QLabel("")   # $HOME's ssh config is not the one ssh reads (unread_home_sentence)
        self.config_note.setWordWrap(True)
        self.use_config = QPushButton("Use it")
        self.use_config.setToolTip("Pass this file to every ssh and scp the app runs (remembered; "
                                   "$EXPLORER_SSH_CONFIG still wins)")
        self._show_config()
        self._slurm_box()
        self.check_btn = QPushButton("Check host")
        self.result = QLabel("")
        self.result.setWordWrap(True)
        self.result.setMinimumHeight(90)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)   # copy the ssh command
        self.problem = QLabel("")
        self.problem.setObjectName("errorLabel")
        self.problem.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)

        form = QFormLayout()
        form.addRow("Name", self.fields["name"])
        form.addRow("SSH host", self.fields["target"])
        form.addRow("Port", self.port)
        form.addRow("Key file", self.fields["key"])
        form.addRow("Python on the host", self.fields["python"])
        form.addRow("Runs folder on the host", self.fields["runs_dir"])
        form.addRow("Open its checkpoints", self.inspect)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(self.remove_btn)
        left.addLayout(row)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addWidget(self.slurm_group)
        note_row = QHBoxLayout()
        note_row.addWidget(self.config_note, 1)
        note_row.addWidget(self.use_config)
        right.addLayout(note_row)
        right.addWidget(self.aliases)
        right.addWidget(self.check_btn)
        right.addWidget(self.result, 1)
        right.addWidget(self.problem)
        top = QHBoxLayout()
        top.addLayout(left)
        top.addLayout(right, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top, 1)
        lay.addWidget(buttons)

        add.clicked.connect(self.add_host)
        self.remove_btn.clicked.connect(self.remove_host)
        self.check_btn.clicked.connect(self.check)
        self.use_config.clicked.connect(self._toggle_config)
        self.list.currentRowChanged.connect(self._show)
        self.fields["target"].textEdited.connect(self._target_typed)   # before _edited, which shows the problem
        for ed in self.fields.values():
            ed.textEdited.connect(self._edited)
        self.fields["target"].editingFinished.connect(self._read_port)
        self.port.valueChanged.connect(self._edited)
        self.inspect.currentIndexChanged.connect(self._inspect_edited)
        self.slurm.toggled.connect(self._edited)
        for ed in (self.partition, self.time_limit):
            ed.textEdited.connect(self._edited)
        self.slurm_gpus.valueChanged.connect(self._edited)
        self.extra.textChanged.connect(self._edited)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self._refresh_list()
        self.resize(780, 600)

    def _slurm_box(self) -> None:
        """The "SLURM login node" check box and its options (enabled while it is checked)."""
        self.slurm = QCheckBox("SLURM login node: submit runs with sbatch")
        self.slurm.setToolTip("Runs on this host are submitted as SLURM batch jobs (a run group as one job array); "
                              "the job script is shown before each submission.")
        self.partition = QLineEdit()
        self.partition.setPlaceholderText("empty: the cluster's default partition")
        self.slurm_gpus = QSpinBox()
        self.slurm_gpus.setRange(0, 64)
        self.slurm_gpus.setSpecialValueText("none (a CPU job)")
        self.slurm_gpus.setToolTip("--gres=gpu:N; more than one runs the worker with accelerate launch --multi_gpu "
                                   "(not tested here: the test cluster has no GPU)")
        self.time_limit = QLineEdit()
        self.time_limit.setPlaceholderText("04:00:00 (minutes, HH:MM:SS or D-HH:MM:SS)")
        self.extra = QPlainTextEdit()
        self.extra.setPlaceholderText("more sbatch options, one a line: --account=lab")
        self.extra.setMaximumHeight(56)
        form = QFormLayout()
        form.addRow("Partition", self.partition)
        form.addRow("GPUs per job", self.slurm_gpus)
        form.addRow("Time limit", self.time_limit)
        form.addRow("Extra #SBATCH lines", self.extra)
        self.slurm_group = QGroupBox()
        lay = QVBoxLayout(self.slurm_group)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.slurm)
        lay.addLayout(form)
        self._slurm_fields_enabled(False)

    # ---- which ssh_config ------------------------------------------------------------------
    def _show_config(self) -> None:
        """The aliases of the config in use, and the one line (with "Use it" / "Stop using it") when $HOME's
        ssh config is not the file ssh reads."""
        aliases = ssh_aliases()
        ClickThroughCompleter(aliases, self.fields["target"])   # a click after typing is never eaten
        self.aliases.setText(f"Aliases in your SSH config ({ssh_config_path()}): "
                             + (", ".join(aliases) if aliases else "none"))
        chosen = self.settings.ssh_config() if not os.environ.get(SSH_CONFIG_ENV) else ""
        note = unread_home_sentence()
        if chosen:
            self.config_note.setText(f"Every ssh and scp of the app reads {chosen} (chosen here).")
            self.use_config.setText("Stop using it")
        else:
            self.config_note.setText(note)
            self.use_config.setText("Use it")
        self.config_note.setVisible(bool(chosen or note))
        self.use_config.setVisible(bool(chosen or note))

    def _toggle_config(self) -> None:
        """ "Use it": every ssh / scp reads $HOME's ssh config from now on (remembered); "Stop using it": ssh's
        own file again."""
        self.settings.set_ssh_config("" if self.settings.ssh_config() else str(home_ssh_config()))
        self._show_config()
        self._read_port()

    def _slurm_fields_enabled(self, on: bool) -> None:
        for w in (self.partition, self.slurm_gpus, self.time_limit, self.extra):
            w.setEnabled(on)

    # ---- list ----------------------------------------------------------------------------
    def _refresh_list(self, select: int = 0) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        self.list.addItems([h.name for h in self.hosts])
        self.list.blockSignals(False)
        if self.hosts:
            self.list.setCurrentRow(max(0, min(select, len(self.hosts) - 1)))
        self._show(self.list.currentRow())

    def current(self) -> Host | None:
        row = self.list.currentRow()
        return self.hosts[row] if 0 <= row < len(self.hosts) else None

    def add_host(self, host: Host | None = None) -> Host:
        """Add a host (a blank one to fill in by default) and select it; its Name is selected and focused, so the
        name typed next replaces the "host N" it starts with."""
        host = host if isinstance(host, Host) else Host(name=f"host {len(self.hosts) + 1}")
        self.hosts.append(host)
        self._refresh_list(len(self.hosts) - 1)
        self.fields["name"].setFocus(Qt.FocusReason.OtherFocusReason)
        self.fields["name"].selectAll()
        return host

    def remove_host(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.hosts):
            del self.hosts[row]
            self._refresh_list(row)

    def _show(self, row: int) -> None:
        host = self.current()
        enabled = host is not None
        for ed in (*self.fields.values(), self.port, self.inspect, self.check_btn, self.remove_btn, self.slurm):
            ed.setEnabled(enabled)
        self.result.setText("")
        if host is None:
            self._slurm_fields_enabled(False)
            return
        self.inspect.blockSignals(True)
        self.inspect.setCurrentIndex(max(0, self.inspect.findData(self._inspect.get(id(host), ""))))
        self.inspect.blockSignals(False)
        for name, ed in self.fields.items():
            value = str(getattr(host, name))
            ed.setText("" if value == DEFAULTED.get(name) else value)
        opts = host.slurm or SlurmOptions()
        widgets = (self.port, self.slurm, self.slurm_gpus, self.extra)
        for w in widgets:
            w.blockSignals(True)
        self.port.setValue(int(host.port))
        self.slurm.setChecked(host.slurm is not None)
        self.partition.setText(opts.partition)
        self.slurm_gpus.setValue(int(opts.gpus))
        self.time_limit.setText(opts.time_limit)
        self.extra.setPlainText(opts.extra)
        for w in widgets:
            w.blockSignals(False)
        self._slurm_fields_enabled(host.slurm is not None)
        self._show_problem(host)
        self._read_port()

    def _read_port(self) -> None:
        """The port ssh's own config gives the SSH host (ssh -G, on a worker thread: a config may run commands),
        shown in the Port field's "from the SSH config (N)" (not 22 for a host whose config says 2222). Only the
        latest read is shown: one begun before "Use it" may end after the read under the chosen config."""
        target = self.fields["target"].text().strip()
        self.port.setSpecialValueText("from the SSH config")
        self._port_reads += 1
        if not target:
            return
        read = self._port_reads

        def show(port: int) -> None:
            try:
                if read == self._port_reads and self.fields["target"].text().strip() == target:   # still that host
                    self.port.setSpecialValueText(f"from the SSH config ({port})")
            except RuntimeError:   # the dialog was closed meanwhile
                pass
        start_worker(configured_port, target, on_done=show)

    def _edited(self, *_args) -> None:
        host = self.current()
        if host is None:
            return
        target = host.target
        for name, ed in self.fields.items():
            setattr(host, name, ed.text().strip() or DEFAULTED.get(name, ""))
        if host.target != target:   # another machine: its GPUs are unknown until it is checked
            host.gpus_found = None
        host.port = self.port.value()
        on = self.slurm.isChecked()
        host.slurm = SlurmOptions(partition=self.partition.text().strip(), gpus=self.slurm_gpus.value(),
                                  time_limit=self.time_limit.text().strip(), extra=self.extra.toPlainText()) if on else None
        self._slurm_fields_enabled(on)
        item = self.list.currentItem()
        if item is not None:
            item.setText(host.name or host.target)
        self._show_problem(host)

    def _target_typed(self, _text: str) -> None:
        host = self.current()
        if host is not None:
            self._tried.add(id(host))

    def _show_problem(self, host: Host) -> None:
        """What the host still lacks, in red; a new host whose SSH host nobody has typed, checked or saved yet gets
        a grey hint instead, so "Add" never greets the person with an error."""
        if not host.target.strip() and id(host) not in self._tried:
            self._say(NEW_HOST_HINT, error=False)
        else:
            self._say(host.problem(), error=True)

    def _say(self, text: str, *, error: bool) -> None:
        """The line under the check: red (``errorLabel``) for a problem, grey (``hint``) for a hint."""
        name = "errorLabel" if error else "hint"
        if self.problem.objectName() != name:
            self.problem.setObjectName(name)
            self.problem.style().unpolish(self.problem)
            self.problem.style().polish(self.problem)
        self.problem.setText(text)

    def _inspect_edited(self, _index: int) -> None:
        host = self.current()
        if host is not None:
            self._inspect[id(host)] = self.inspect.currentData() or ""

    # ---- check ---------------------------------------------------------------------------
    def check(self) -> None:
        """Check the selected host on a worker thread; the result replaces the text below the button."""
        host = self.current()
        if host is None:
            return
        self._tried.add(id(host))
        self._show_problem(host)
        self.result.setText(f"Checking {host.name}…")
        self.check_btn.setEnabled(False)
        start_worker(check_host, Host.from_dict(host.to_dict()), on_done=lambda res: self._checked(res, host),
                     on_error=lambda msg, tb: self._checked(HostCheck(host=host, problem=msg), host))

    def _checked(self, res: HostCheck, host: Host | None = None) -> None:
        """A check of ``host`` (the dialog's entry; by default the one of the checked host's name) ended: said,
        and the GPUs it counted kept with the host, in the saved list at once (the GPUs box reads them there)."""
        self.check_btn.setEnabled(True)
        host = host or next((h for h in self.hosts if h.name == res.host.name), None)
        if res.gpu_count is not None:
            if host is not None:
                host.gpus_found = res.gpu_count
            saved = self.settings.hosts()
            for h in saved:
                if h.name == res.host.name and h.target == res.host.target:
                    h.gpus_found = res.gpu_count
            self.settings.set_hosts(saved)
        head = f"<b>{res.host.name}</b>: " + ("ready for runs" if res.ok else "not ready")
        body = "<br>".join(line.replace("<", "&lt;") for line in res.lines())
        self.result.setText(f"{head}<br>{body}")
        self.checked.emit(res)

    # ---- OK ------------------------------------------------------------------------------
    def accept(self) -> None:
        names = [h.name for h in self.hosts]
        bad = next((f"{h.name or '(unnamed)'}: {h.problem()}" for h in self.hosts if h.problem()), "")
        if not bad and len(set(names)) != len(names):
            bad = "two hosts have the same name"
        self._tried.update(id(h) for h in self.hosts)
        if bad:
            self._say(bad, error=True)
            return
        self.settings.set_hosts(self.hosts)
        for h in self.hosts:
            self.settings.set_inspect_choice(h.name, self._inspect.get(id(h), ""))
        self.saved.emit()
        super().accept()


class RunOnPicker(QWidget):
    """"Run on": this machine or one of the hosts, GPUs for a host run, and "Hosts…" (the dialog). The choice is
    remembered in the settings at each change (AppSettings.run_on) and chosen again at the next start; a remembered
    host no longer in the list leaves this machine chosen, and ``note`` says so (the launcher's banner shows it
    until the next choice). ``changed``: the user chose (the note is gone)."""

    changed = Signal()

    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.combo = QComboBox()
        self.combo.setToolTip("Where the run trains: this machine, or a remote host over SSH (its events "
                              "stream back into Runs and Curves).")
        self.gpus = QSpinBox()
        self.gpus.setRange(*gpu_range(None))
        self.gpus.setPrefix("GPUs: ")
        self.gpus.setToolTip("GPUs on the host; more than one runs the worker with accelerate launch --multi_gpu.")
        self.hosts_btn = QPushButton("Hosts…")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Run on"))
        lay.addWidget(self.combo)
        lay.addWidget(self.gpus)
        lay.addWidget(self.hosts_btn)
        self.hosts_btn.clicked.connect(self.edit_hosts)
        self.combo.currentIndexChanged.connect(lambda _i: self._gpus_enabled())
        self.combo.activated.connect(lambda _i: self._chosen())
        self.dialog: HostsDialog | None = None
        self.note = ""
        self.refresh()
        self._restore()

    def _restore(self) -> None:
        """Choose the host remembered at the last change; one no longer in the Hosts list: this machine, and why."""
        name = self.settings.run_on() if self.settings is not None else ""
        index = self.combo.findText(name) if name else 0
        if index > 0:
            self.combo.setCurrentIndex(index)
        elif name:
            self.note = (f"Run on is {THIS_MACHINE.lower()}: the host {name} chosen last time is no longer in the "
                         f"Hosts list.")

    def _chosen(self) -> None:
        """The user chose where runs train (or the host list changed under the choice): remember it, drop the note."""
        if self.settings is not None:
            self.settings.set_run_on(self.combo.currentText() if self.combo.currentIndex() > 0 else "")
        self.note = ""
        self.changed.emit()

    def refresh(self) -> None:
        """Reload the host list from the settings, keeping the choice when that host is still there."""
        keep = self.combo.currentText()
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem(THIS_MACHINE)
        for host in self.settings.hosts() if self.settings is not None else []:
            self.combo.addItem(host.name)
        index = self.combo.findText(keep)
        self.combo.setCurrentIndex(max(index, 0))
        self.combo.blockSignals(False)
        self._gpus_enabled()

    def _gpus_enabled(self) -> None:
        """The GPUs box counts for a direct host run; a SLURM host's jobs take its GPUs per job. It offers the GPUs
        the host's check found: "CPU" (0) for a host without one (core.remote.check.gpu_range)."""
        host = self.host()
        self.gpus.setEnabled(host is not None and host.slurm is None)
        low, high = gpu_range(host.gpus_found if host is not None else None)
        self.gpus.setSpecialValueText("CPU" if low == 0 else "")
        self.gpus.setRange(low, high)
        self.gpus.setToolTip("GPUs per job are set in the Hosts dialog for this SLURM login node"
                             if host is not None and host.slurm is not None else
                             "The host's check found no GPU: the run uses the host's CPU." if low == 0 else
                             "GPUs on the host; more than one runs the worker with accelerate launch --multi_gpu.")

    def host(self) -> Host | None:
        """The chosen host, or None for this machine."""
        if self.settings is None or self.combo.currentIndex() <= 0:
            return None
        return next((h for h in self.settings.hosts() if h.name == self.combo.currentText()), None)

    def choose(self, name: str) -> None:
        """Choose the host ``name`` (this machine when it is not listed), as the user would: remembered."""
        self.combo.setCurrentIndex(max(self.combo.findText(name), 0))
        self._chosen()

    def host_name(self) -> str:
        """The chosen host's name, "" for this machine."""
        return self.combo.currentText() if self.combo.currentIndex() > 0 else ""

    def edit_hosts(self) -> HostsDialog:
        """Open the Hosts dialog (non-modal); the list reloads when it is saved."""
        self.dialog = HostsDialog(self.settings, self.window())
        self.dialog.saved.connect(self._hosts_saved)
        self.dialog.checked.connect(self._host_checked)
        self.dialog.show()
        return self.dialog

    def _host_checked(self, res: HostCheck) -> None:
        """A check in the Hosts dialog counted the host's GPUs (kept with its saved entry): the GPUs box offers no
        more than it found."""
        if res.gpu_count is not None:
            self._gpus_enabled()

    def _hosts_saved(self) -> None:
        """The Hosts dialog saved: the list again, the choice kept when its host is still there (remembered as is)."""
        self.refresh()
        self._chosen()
