"""``checkpoints/best`` picked on a dev sample, scored on the whole dev set at the end of the run.

During training a run with a dev sample (eval_schedule) compares its evaluations on the sample's rows, so the
checkpoint it keeps as best may score below the final step on all dev rows (best 39.79 F_avg on a 200-row sample at
step 56, the final step 42.43 on all 254 rows), and the Runs list's Best dev would name a sample's figure for it. At
the end, after the final evaluation on the whole dev set, :func:`rescore_best` scores ``checkpoints/best`` on the
whole dev set too and keeps, of the two, the better one on all rows in the metric's direction (a tie keeps the
earlier step, as core/specs/best does). It emits:

- an ``eval`` event at the best step with every dev row and ``"rescored": true`` (the step's earlier evaluation
  scored the sample; readers take the last evaluation at the step ``checkpoints/best`` holds, so its Best dev becomes
  this whole-dev figure; Curves leaves it off the line, which runs in step order),
- a ``checkpoint`` event of kind "best" at the step kept (``scored_on``: all dev rows): the final step when it
  wins, else the best step again (its figure now counts all dev rows),
- a ``log`` line saying which step is kept and both figures.

Every process evaluates (the forward is collective); only the main process writes. Each process reads the
weights from ``checkpoints/best`` (the folder every process resumes from too), and gets the final step's back after.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path

from explorer.core.errors import CheckpointError
from explorer.core.runs.layout import checkpoint_dir
from explorer.core.specs.best import is_improvement
from explorer.core.specs.metric_display import display_number, metric_name, to_display
from explorer.core.specs.tasks import choose_metric
from explorer.core.training.checkpoints import copy_checkpoint
from explorer.core.training.evaluation import EvaluationProgress, evaluate

__all__ = ["needs_rescoring", "rescore_best", "weights_from"]


def needs_rescoring(keeper, final_step: int, dev_total: int) -> bool:
    """``checkpoints/best`` holds an earlier step than the final one, picked on fewer rows than the whole dev set
    (rows unknown, from a state saved before they were kept: picked on a sample when the run has one)."""
    if keeper.best_step is None or keeper.best_step == final_step:
        return False
    rows = keeper.best_rows
    return rows is None or rows < dev_total


def rescore_best(run, keeper, final_metrics: dict | None) -> None:
    """Score ``checkpoints/best`` on the whole dev set when it was picked on a dev sample at an earlier step, and
    keep the better of it and the final step (``final_metrics``: the final evaluation's, on all dev rows) as
    ``checkpoints/best``. No-op without checkpoints, dev data or a final evaluation. All processes call it."""
    schedule = getattr(run, "schedule", None)
    if not run.config.save_checkpoints or schedule is None or run.dev_loader is None or not final_metrics:
        return
    dev_total, final_step = schedule.dev_total, run.progress.step   # dev rows (a tagging run's sentences)
    if not needs_rescoring(keeper, final_step, dev_total) or (keeper.best_rows is None and not schedule.sampled):
        return
    run.accelerator.wait_for_everyone()
    folder = checkpoint_dir(run.run_dir, "best")
    if folder is None:
        return
    best_step, picked_rows = keeper.best_step, keeper.best_rows
    inner = run.accelerator.unwrap_model(run.model)
    try:
        with weights_from(inner, folder):
            res = evaluate(run.accelerator, run.model, run.tokenizer, run.task, run.dev_ex, run.dev_feats,
                           run.dev_loader, run.config, control=run.control, out_dir=None, rows=dev_total,
                           on_rows=EvaluationProgress(run.writer, step=best_step, final=False, rows_total=dev_total,
                                                      dev_total=dev_total, rescoring=True,
                                                      features=len(run.dev_feats)))
    except (CheckpointError, OSError) as exc:   # the run's own results stand: best stays as picked on the sample
        run.writer.emit("log", level="warning", topic="best_rescored", message=f"checkpoints/best (step {best_step}) "
                        f"could not be scored on all {dev_total:,} dev rows ({exc}): it stays best, as picked on the "
                        "dev sample")
        return
    metrics = res["metrics"]
    run.writer.emit("eval", step=best_step, epoch=best_step / run.plan["steps_per_epoch"], metrics=metrics,
                    seconds=res["seconds"], dev_rows=dev_total, dev_total=dev_total,
                    rows_per_second=res["rows_per_second"], rescored=True)
    name = choose_metric(metrics, run.config.to_dict()) or keeper.metric_name
    best_value, final_value = finite(metrics.get(name)), finite(final_metrics.get(name))
    final_wins = is_improvement(final_value, best_value, name)
    kept_step = final_step if final_wins else best_step
    if run.accelerator.is_main_process:
        if final_wins:
            path = copy_checkpoint(run.run_dir, "last", "best", metrics=final_metrics)
            run.writer.emit("checkpoint", step=final_step, path=str(path), kind="best", metric=keeper.metric_name,
                            picked_on=f"all {dev_total:,} dev rows", scored_on=f"all {dev_total:,} dev rows")
        else:   # checkpoint.json of best: its figures on all dev rows, and an event that says so
            path = copy_checkpoint(run.run_dir, "best", "best", metrics=metrics)
            run.writer.emit("checkpoint", step=best_step, path=str(path), kind="best", metric=keeper.metric_name,
                            picked_on=schedule.rows_note() if picked_rows is None else
                            f"the {picked_rows:,}-row stratified sample of the {dev_total:,} dev rows",
                            scored_on=f"all {dev_total:,} dev rows")
        run.writer.emit("log", level="info", topic="best_rescored", message=rescored_text(
            name, run.config.task, best_step=best_step, picked_rows=picked_rows, best_value=best_value,
            final_value=final_value, dev_total=dev_total, final_wins=final_wins))
    keeper.best_step, keeper.best_rows = kept_step, dev_total
    keeper.best_value = final_value if final_wins else best_value
    run.accelerator.wait_for_everyone()


def finite(value) -> float | None:
    """``value`` as a float when it is a finite number, else None (never ranked best: core/specs/best)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def rescored_text(name: str, task: str, *, best_step: int, picked_rows: int | None, best_value: float | None,
                  final_value: float | None, dev_total: int, final_wins: bool) -> str:
    """'checkpoints/best (step 56, best on the 200-row sample) scored 41.10 F_avg on all 254 dev rows against the
    final step's 42.43: the final step is kept as best' (or '…: step 56 stays best')."""
    def shown(value):
        return "undefined" if value is None else display_number(name, to_display(name, value, task))

    sample = f"the {picked_rows:,}-row sample" if picked_rows else "the dev sample"
    outcome = "the final step is kept as best" if final_wins else f"step {best_step} stays best"
    return (f"checkpoints/best (step {best_step}, best on {sample}) scored {shown(best_value)} {metric_name(name, task)} "
            f"on all {dev_total:,} dev rows against the final step's {shown(final_value)}: {outcome}")


@contextlib.contextmanager
def weights_from(model, folder: str | Path):
    """Load the safetensors weights of checkpoint ``folder`` into ``model`` (an unwrapped transformers model) for
    the block, then put the model's own weights back (a copy on the CPU), so nothing after sees other weights.

    Raises:
        CheckpointError: the folder has no weights, or weights the model does not have.
    """
    from safetensors.torch import load_file

    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        raise CheckpointError(f"{folder}: no model weights (*.safetensors) to score")
    own = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    state: dict = {}
    for f in files:
        state.update(load_file(str(f)))
    try:
        result = model.load_state_dict(state, strict=False)   # save_pretrained leaves tied copies out
        if result.unexpected_keys:
            raise CheckpointError(f"{folder}: weights this model does not have: {result.unexpected_keys[:5]}")
        yield model
    finally:
        model.load_state_dict(own)
