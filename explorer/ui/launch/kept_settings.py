"""The settings a new training file or task keeps from before, Qt-free: said in the launcher's banner, with a link
that puts them back to their defaults.

A change of data (a new training file, another task) brings that data's own defaults where a setting is tied to the
data (its columns, caps, Best checkpoint by: explorer.ui.launch.form_model.LaunchForm). The training settings below
are not tied to it and stay as they were, but a value set for the previous data (Evaluate every 1 for a tiny file,
no checkpoints, dropout 0) then silently shapes a run on the new one, seen only in the Preview command. So the
banner names each one that is not its default, in one short line, with a "Reset to defaults" link
(:data:`RESET_LINK`, handled by :func:`reset_kept`).
"""

from __future__ import annotations

from typing import Any

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.field_specs import field_spec

__all__ = ["KEPT_SETTINGS", "RESET_LINK", "forget_best_metric", "kept_note", "kept_settings", "reset_kept"]

# the training settings a change of data keeps: not part of the preset line (lr, batch, epochs, time budget and
# max_seq_length are shown there), not tied to the data's columns or classes
KEPT_SETTINGS = ("eval_every", "full_dev_evals", "save_checkpoints", "dropout", "warmup_ratio", "weight_decay",
                 "max_grad_norm", "gradient_accumulation_steps", "max_steps", "seed", "length_grouping",
                 "mixed_precision")
RESET_LINK = "reset-kept-settings"   # the href of the banner's "Reset to defaults"


def kept_settings(values: dict[str, Any], edited: set[str]) -> list[str]:
    """The KEPT_SETTINGS whose value is not the default (TrainConfig's): Evaluate every only where the user set
    it (otherwise it is fitted to the new data's steps anyway)."""
    defaults = TrainConfig()
    out = []
    for name in KEPT_SETTINGS:
        if name == "eval_every":
            if name in edited and values.get(name):
                out.append(name)
        elif name in values and values[name] != getattr(defaults, name):
            out.append(name)
    return out


def _said(name: str, value: Any) -> str:
    """One kept setting in words: "evaluate every 1 step", "no checkpoints saved", "dropout 0"."""
    if name == "eval_every":
        return f"evaluate every {value} step{'' if value == 1 else 's'}"
    if name == "save_checkpoints":
        return "checkpoints saved" if value else "no checkpoints saved"
    if name == "full_dev_evals":
        return "the whole dev set at every evaluation" if value else "a dev sample at evaluations"
    if name == "length_grouping":
        return "length-grouped batches" if value else "no length-grouped batches"
    label = field_spec(name).label
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{label[:1].lower()}{label[1:]} {shown}"


def kept_note(values: dict[str, Any], edited: set[str]) -> str:
    """The banner's line (rich text) naming the non-default settings kept from before, with the link that resets
    them: "Kept from before: evaluate every 1 step, no checkpoints saved, dropout 0 (Reset to defaults)"; "" when
    every one is at its default."""
    names = kept_settings(values, edited)
    if not names:
        return ""
    said = ", ".join(_said(n, values[n]) for n in names)
    return f"Kept from before: {said} (<a href='{RESET_LINK}'>Reset to defaults</a>)"


def reset_kept(form) -> list[str]:
    """Put the kept settings of ``form`` (a LaunchForm) back to their defaults, through its rules: Evaluate every
    fitted to the run's steps again, the others TrainConfig's defaults, none counted as edited. Returns the names
    reset."""
    names = kept_settings(form.values, form.edited)
    defaults = TrainConfig()
    for name in names:
        form.edited.discard(name)
        if name != "eval_every":
            form.set(name, getattr(defaults, name))
    if "eval_every" in names:   # what fits the run's steps, or the task's default while the file's size is unknown
        steps = form.plan.eval_every()
        form.set("eval_every", defaults.eval_every if steps is None else steps)
    return names


def forget_best_metric(form) -> list[str]:
    """A change of data: a Best checkpoint by chosen for the previous data goes back to automatic (the new task's
    or labels' metric: core.specs.tasks.automatic_metric_for_best). Returns what was cleared, for the banner
    (["Best checkpoint by (macro_f1)"] or [])."""
    chosen = form.values.get("metric_for_best")
    if not chosen:
        return []
    form.set("metric_for_best", "")
    form.edited.discard("metric_for_best")
    return [f"Best checkpoint by ({chosen})"]
