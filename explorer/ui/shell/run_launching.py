"""Where a run launched from the main window goes: this machine's run queue (explorer.ui.runs.runner), a remote
host over SSH (explorer.ui.runs.remote_runner), or a SLURM login node, where the job script (one job, or one job
array for a run group) is shown first and submitted from its dialog. The first run is selected and Curves shown.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from explorer.core.specs.train_config import ConfigError, TrainConfig

__all__ = ["RunLaunching"]


class RunLaunching:
    """Launches for ``window`` (a MainWindow: its ``launcher`` (Run on), ``manager``, ``remote``, ``runs``,
    ``tabs``, ``curves`` and ``show_message``)."""

    def __init__(self, window):
        self.window = window

    def launch(self, configs: list[TrainConfig], suffixes: list[str] | None = None) -> list[str]:
        """Start ``configs`` (run-id ``suffixes``) where the launcher's Run on says: this machine's queue, a host
        over SSH, or (a SLURM login node) the job script's dialog first. Returns the run ids (those of the script
        for SLURM; [] when refused, with the reason in a message box)."""
        w = self.window
        host = w.launcher.run_on.host()
        if host is not None and host.slurm is not None:   # the script first; submitted on its dialog's Submit
            dlg = self.submit_to_slurm(host, configs, suffixes)
            return list(dlg.run_ids) if dlg is not None else []
        try:
            if host is not None:
                ids = w.remote.enqueue(host, configs, suffixes, gpus=w.launcher.run_on.gpus.value())
            else:
                ids = w.manager.enqueue(configs, suffixes)
        except ConfigError as exc:
            QMessageBox.warning(w, "Cannot launch", str(exc))
            return []
        if ids:
            w.runs.select(ids[:1])
            w.tabs.setCurrentWidget(w.curves)
            where = f" on {host.name}" if host is not None else ""
            w.show_message(f"Launched {ids[0]}{where}" + (f" (+{len(ids) - 1} queued)" if len(ids) > 1 else ""))
        return ids

    def submit_to_slurm(self, host, configs: list[TrainConfig], suffixes: list[str] | None = None):
        """A launch on a SLURM login node: the job script (one job, or one job array for a run group) is shown
        in a dialog (returned; None for a bad config); Submit hands it to RemoteRunManager.submit_slurm."""
        w = self.window
        from explorer.core.remote.slurm import sbatch_script
        from explorer.ui.launch.sbatch_dialog import SbatchDialog

        try:
            prepared = w.remote.plan(configs, suffixes)
        except ConfigError as exc:
            QMessageBox.warning(w, "Cannot launch", str(exc))
            return None
        ids = [cfg.run_id for cfg in prepared]
        script = sbatch_script(host, ids)
        dlg = SbatchDialog(host, ids, script, w)

        def submit():
            w.remote.submit_slurm(host, prepared, script)
            w.runs.select(ids[:1])
            w.tabs.setCurrentWidget(w.curves)
            w.show_message(f"Submitting {ids[0]} to SLURM on {host.name}"
                              + (f" (a job array of {len(ids)})" if len(ids) > 1 else ""))

        dlg.submitted.connect(submit)
        w.sbatch_dialog = dlg
        dlg.open()
        return dlg
