"""What stands between a launcher form and a launch, without Qt: settings out of range, window settings the
model cannot take, a checkpoint's head that cannot take the data's labels, data files the data check refused, a
Run name another run has.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from explorer.core.errors import ConfigError
from explorer.core.specs.tasks import is_qa_task
from explorer.core.specs.train_config import TrainConfig

__all__ = ["LaunchCheck", "LaunchGate", "WINDOW_FIELDS"]

WINDOW_FIELDS = ("max_seq_length", "doc_stride", "max_query_length")


def data_labels(result: dict | None) -> tuple[list[str] | None, int] | None:
    """(the training data's label names, None for plain ids 0..K-1; K) as its data check counted them (classes,
    token tags), or None while unknown."""
    if not result or not result.get("ok"):
        return None
    classes = list(result.get("class_counts") or {}) or list(result.get("tags") or [])
    if not classes:
        return None
    return (None if result.get("unnamed_labels") else classes), len(classes)


@dataclass(frozen=True, kw_only=True)
class LaunchCheck:
    """What stands between the form and a launch.

    ``problem``: "" when the form can launch, else why not (a setting out of range, window settings the model
    cannot take, a data file the data check refused); ``windows``: the window settings' problems
    (core.models.window_settings.WindowSettingProblem), None when the config did not validate (not checked then)."""

    problem: str
    windows: list | None


class LaunchGate:
    """The launch checks of a form: ``runs_dir`` (where runs are written when Output is empty), ``past_runs() ->
    RunStates`` (this machine's runs: their names are taken). The models' window limits are read once per model."""

    def __init__(self, runs_dir: str, past_runs: Callable[[], list] = list):
        self.runs_dir = runs_dir
        self.past_runs = past_runs
        self._limits: dict = {}   # model source -> WindowLimits | None
        self._heads: dict = {}    # (model source, task) -> its head's labels for the task, or None

    @staticmethod
    def refusal(split: str, path: str, result: dict | None) -> str:
        """Why Launch is refused for one data file (``path``, its data check's ``result``): its name and the
        check's first line ("the dev data cannot be used (dev.tsv): ..."), so a disabled Launch says which file."""
        name = Path(path).name or f"the {split} file"
        reason = str((result or {}).get("error", "")).strip().splitlines()
        why = reason[0] if reason else "see the data preview"
        return f"the {split} data cannot be used ({name}): {why}"

    def head_refusal(self, cfg: TrainConfig, result: dict | None) -> str:
        """Why the Base model's head cannot take the training data's labels (core.models.label_fit, the run's own
        rule), naming the launcher's New head box; "" when it can, when New head is ticked, or while either side
        is unknown: a hub model (its config is not read here), data not counted yet (``result``: the training data
        check's), data whose labels the check does not list (label sets)."""
        from explorer.core.models.label_fit import checkpoint_head_labels, head_fit

        labels = data_labels(result)
        if cfg.new_head or labels is None:
            return ""
        key = (cfg.model, cfg.task)
        if key not in self._heads:
            self._heads[key] = checkpoint_head_labels(cfg.model, cfg.task)
        head = self._heads[key]
        return "" if head is None else head_fit(head, *labels).refusal("Tick “New head”")

    def window_problems(self, cfg: TrainConfig) -> list:
        """max_seq_length / doc_stride / max_query_length against the chosen model (its config.json and
        tokenizer_config.json, read without loading it): core.models.window_settings problems."""
        from explorer.core.models.window_settings import check_limits, source_limits

        qa = is_qa_task(cfg.task)
        if cfg.model not in self._limits:
            self._limits[cfg.model] = source_limits(cfg.model)
        limits = self._limits[cfg.model]
        return [] if limits is None else check_limits(
            limits, cfg.resolved_max_seq_length(), cfg.doc_stride if qa else None,
            cfg.max_query_length if qa else None)

    @staticmethod
    def window_marks(problems: list) -> dict[str, tuple[str, str]]:
        """Per window field: (its problems' messages, "" when none; "error" or "warning")."""
        out = {}
        for name in WINDOW_FIELDS:
            mine = [p for p in problems if p.setting == name]
            severity = "error" if any(p.severity == "error" for p in mine) else "warning"
            out[name] = ("; ".join(p.message for p in mine), severity)
        return out

    def check(self, cfg: TrainConfig, refused: list[str]) -> LaunchCheck:
        """Whether ``cfg`` can launch: it validates, its window settings fit the model, and no data file was
        refused (``refused``: the refusal sentences of the refused files)."""
        windows = None
        try:
            cfg.validate()
            windows = self.window_problems(cfg)
            errors = [p.message for p in windows if p.severity == "error"]
            if errors:
                raise ConfigError("window settings do not fit the model: " + "; ".join(errors))
            if refused:   # the data check refused the data: which file and why; no launch of a run bound to fail
                raise ConfigError("; ".join(refused))
        except ConfigError as exc:
            return LaunchCheck(problem=str(exc), windows=windows)
        return LaunchCheck(problem="", windows=windows)

    def disk_shortfall(self, cfg: TrainConfig) -> str:
        """A sentence when the disk of the run's output folder has less free space than the run's checkpoints
        need (core.training.checkpoints.checkpoint_bytes of the Base model's weight files, read here); "" when it
        has enough, when checkpoints are off, or while the model's size is unknown (a hub model not downloaded)."""
        from explorer.core.models.sources import weight_bytes
        from explorer.core.training.checkpoints import checkpoint_bytes, disk_shortfall

        weights = weight_bytes(cfg.model) if cfg.save_checkpoints else None
        if not weights:
            return ""
        needed = checkpoint_bytes(weights // 4)["total"]   # fp32: 4 bytes a parameter
        return disk_shortfall(Path(cfg.output_dir or self.runs_dir).expanduser(), needed,
                              "this run's checkpoints (last with the optimizer state, and best)")

    def taken_name(self, cfg: TrainConfig) -> tuple[str, str] | None:
        """(the typed Run name, the next free one: "stance", "stance-2") when a run already has the name
        (explorer.core.runs.naming.free_run_id over the runs folder and this machine's runs); None when it is free or
        empty."""
        from explorer.core.runs.naming import free_run_id

        name = (cfg.run_id or "").strip()
        if not name:
            return None
        taken = {s.run_id for s in self.past_runs() if getattr(s, "run_id", None)}
        free = free_run_id(name, Path(cfg.output_dir or self.runs_dir).expanduser(), taken=taken)
        return None if free == name else (name, free)
