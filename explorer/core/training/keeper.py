"""The checkpoint keeper: saves ``checkpoints/last`` and keeps ``checkpoints/best`` for one run.

``best`` is the ``last`` checkpoint of the evaluation whose metric was best so far, in the metric's own
direction (explorer.core.specs.best; lowest for ``loss``). The metric is
explorer.core.specs.tasks.best_metric_name: the config's ``metric_for_best`` or the task's. The
best value, folder, step and the dev rows it was picked on travel in ``training_state.pt`` so a resumed run keeps
comparing against them. A best picked on a dev sample is scored on the whole dev set at the end of the run
(best_rescore.py), which may make the final step best instead.
"""

from __future__ import annotations

from explorer.core.specs.best import is_improvement
from explorer.core.runs.layout import checkpoint_dir, checkpoint_path
from explorer.core.specs.tasks import best_metric_name, choose_metric
from explorer.core.training.checkpoints import copy_checkpoint, read_checkpoint_info, rng_state, save_checkpoint


def saved_best_step(run_dir) -> int | None:
    """The step ``checkpoints/best`` holds, from its checkpoint.json; None without one."""
    folder = checkpoint_dir(run_dir, "best")
    step = read_checkpoint_info(folder).get("step") if folder is not None else None
    return int(step) if isinstance(step, (int, float)) else None


class CheckpointKeeper:
    """Writes the checkpoints of one :class:`~explorer.core.training.setup.TrainingRun`.

    Attributes:
        metric_name: the metric that picks ``best``.
        best_value, best_path: the best metric so far and its folder (None before the first).
        best_step, best_rows: the optimizer step ``best`` holds and the dev rows its evaluation scored (the dev
            sample's during training; None before the first, or from a state saved before they were kept).
        last_saved_step: the optimizer step of the newest ``last`` (-1 before the first save).
    """

    def __init__(self, run):
        self.run = run
        self.metric_name = best_metric_name(run.config.to_dict())
        state = run.state or {}
        self.best_value = state.get("best_value")
        self.best_path = state.get("best_path")
        self.best_step = state.get("best_step", saved_best_step(run.run_dir) if self.best_path else None)
        self.best_rows = state.get("best_rows")
        self.last_saved_step = run.progress.step if run.resumed else -1

    def improved(self, metrics: dict | None) -> bool:
        """Does ``metrics`` beat the best so far (finite, better in the metric's direction)? Records it when it does."""
        name = choose_metric(metrics or {}, self.run.config.to_dict())
        value = None if name is None else metrics[name]
        if not is_improvement(value, self.best_value, name):   # the rule the Runs dock uses too (core.specs.best)
            return False
        self.best_value = float(value)
        self.best_path = str(checkpoint_path(self.run.run_dir, "best"))
        self.best_step = self.run.progress.step
        schedule = getattr(self.run, "schedule", None)
        self.best_rows = schedule.rows if schedule is not None else None
        return True

    def training_state(self) -> dict:
        """What ``--resume`` needs: position, optimizer, schedule, RNG, clock and the best so far."""
        run, p = self.run, self.run.progress
        epoch_done = p.batches_done >= run.plan["micro_batches_per_epoch"]
        return {"step": p.step, "epoch": p.epoch + 1 if epoch_done else p.epoch,
                "batches_done": 0 if epoch_done else p.batches_done, "steps_total": run.steps_total,
                "optimizer": run.optimizer.state_dict(), "scheduler": run.scheduler.state_dict(),
                "rng": rng_state(), "elapsed": run.elapsed(), "train_seconds": run.clock.seconds(),
                "wall_seconds": run.wall.wall_seconds() if getattr(run, "wall", None) is not None else 0.0,
                "best_value": self.best_value,
                "best_path": self.best_path, "best_step": self.best_step, "best_rows": self.best_rows,
                "metric_for_best": self.metric_name}

    def save(self, metrics: dict | None, whole: dict | None = None) -> None:
        """Save ``last`` (with the training state) and copy it to ``best`` when ``metrics`` improved.
        ``whole``: the final evaluation's metrics on every dev row, when ``metrics`` are those of its dev sample's
        rows (what best is compared on): a ``best`` of this step keeps them as its figure, and its event says
        ``scored_on`` all dev rows. No-op when the config turns checkpoints off. All processes must call it (it
        synchronises)."""
        run = self.run
        if not run.config.save_checkpoints:
            return
        improved = self.improved(metrics)
        state = self.training_state()
        step = run.progress.step
        run.accelerator.wait_for_everyone()
        if run.accelerator.is_main_process:
            inner = run.accelerator.unwrap_model(run.model, keep_fp32_wrapper=False)
            run.task.before_save(inner, metrics)
            path = save_checkpoint(run.run_dir, inner, run.tokenizer, step=step, metrics=metrics,
                                   training_state=state, kind="last")
            run.writer.emit("checkpoint", step=step, path=str(path), kind="last")
            if improved:
                path = copy_checkpoint(run.run_dir, "last", "best", metrics=whole or metrics)
                run.writer.emit("checkpoint", step=step, path=str(path), kind="best", metric=self.metric_name,
                                **rows_fields(getattr(run, "schedule", None), whole=whole is not None))
        run.accelerator.wait_for_everyone()
        self.last_saved_step = step


def rows_fields(schedule, *, whole: bool) -> dict:
    """A best checkpoint event's ``picked_on`` (the dev rows the comparison counted) and ``scored_on`` (the rows
    its figure counts: all dev rows when ``whole``, the final evaluation's); {} without a schedule."""
    if schedule is None:
        return {}
    picked = schedule.rows_note()
    return {"picked_on": picked, "scored_on": f"all {schedule.dev_total:,} dev rows" if whole else picked}
