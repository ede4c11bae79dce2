"""The job script shown before a run (or a run group) is submitted to a SLURM login node.

:class:`SbatchDialog` shows the script explorer.core.remote.slurm.sbatch_script wrote (partition, GPUs,
time limit, output and error files in the remote run folder, the worker command) read-only, with
Submit and Cancel; ``submitted`` fires on Submit. The script shown is the script submitted.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout

from explorer.core.remote.hosts import Host
from explorer.ui.shell.screen_fit import keep_on_screen


class SbatchDialog(QDialog):
    """Show ``script`` for ``run_ids`` on ``host``; Submit emits ``submitted`` and closes, Cancel closes
    (nothing is sent then)."""

    submitted = Signal()

    def __init__(self, host: Host, run_ids: list[str], script: str, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle(f"Submit to SLURM on {host.name}")
        self.script = script
        self.run_ids = list(run_ids)
        n = len(run_ids)
        what = (f"{n} runs as one job array (task i trains run i: {run_ids[0]} … {run_ids[-1]})" if n > 1
                else f"run {run_ids[0]}")
        self.summary = QLabel(f"sbatch will submit {what} from the runs folder {host.runs_dir} on {host.name}. "
                              "Its output and error files go to the run folder; the run is listed as queued "
                              "until the job starts, then its curves stream back as for any remote run.")
        self.summary.setWordWrap(True)
        self.text = QPlainTextEdit(script)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(font)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.submit_btn = self.buttons.addButton("Submit", QDialogButtonBox.ButtonRole.AcceptRole)
        self.submit_btn.setDefault(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.buttons)
        self.buttons.accepted.connect(self._submit)
        self.buttons.rejected.connect(self.reject)
        self.resize(760, 460)

    def _submit(self) -> None:
        self.submitted.emit()
        self.accept()
