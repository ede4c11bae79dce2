"""What Launch checks and asks before a run starts: the form's settings valid, the data checks and the head not
refusing the data, a Run name a run already has (use the next free one?), a disk short of the run's checkpoints
(launch anyway?).

The rules are the Qt-free LaunchGate's (``LaunchForm.gate``); this class asks the person through the launcher
panel's ``ask_yes_no`` (tests replace it) and says on the panel's problem line why a run did not start.
"""

from __future__ import annotations

import dataclasses

from explorer.core.specs.train_config import ConfigError, TrainConfig


class LaunchQuestions:
    """The checks and questions of ``panel`` (a LauncherPanel) before it launches a config."""

    def __init__(self, panel):
        self.panel = panel

    def checked(self, cfg: TrainConfig) -> TrainConfig | None:
        """``cfg`` as it launches (a free Run name taken when the person agreed), or None when it cannot launch
        (the problem line says why) or the person kept a taken Run name or stopped for the disk."""
        panel = self.panel
        try:
            cfg.validate()
        except ConfigError as exc:
            panel.problem.setText(f"Cannot launch: {exc}")
            return None
        if panel.train_preview.rejected or panel.dev_preview.rejected \
                or panel.form.gate.head_refusal(cfg, panel.train_preview.result):
            return None   # the panel already says why (the data preview rejected the data, the head its labels)
        cfg = self.free_run_name(cfg)
        if cfg is None or not self.room_for_checkpoints(cfg):
            return None
        return cfg

    def free_run_name(self, cfg: TrainConfig) -> TrainConfig | None:
        """A Run name the user typed that a run already has: ask whether to use the next free one ("stance
        exists: use stance-2?", LaunchGate.taken_name); None when the answer is no."""
        panel = self.panel
        taken = panel.form.gate.taken_name(cfg)
        if taken is None:
            return cfg
        name, free = taken
        if not panel.ask_yes_no("Run name taken", f"A run named {name} exists: use {free}?"):
            panel.problem.setText(f"Cannot launch: a run named {name} exists; type another Run name.")
            return None
        panel.editors["run_id"].set(free)
        return dataclasses.replace(cfg, run_id=free)

    def room_for_checkpoints(self, cfg: TrainConfig) -> bool:
        """False when the output folder's disk is short of the run's checkpoints (LaunchGate.disk_shortfall) and
        the person chose not to launch; a run on a host is checked there, not here."""
        panel = self.panel
        short = "" if panel.run_on.host() is not None else panel.form.gate.disk_shortfall(cfg)
        if short and not panel.ask_yes_no("Little disk space", f"{short[0].upper()}{short[1:]}: saving them will "
                                          "fail. Launch anyway? (Untick Save checkpoints or choose another Output "
                                          "folder to avoid it.)"):
            panel.problem.setText(f"Not launched: {short}.")
            return False
        return True
