"""What the launcher's form model says of the form, shown on its widgets: the fields marked red (what blocks a
launch) or amber (a note) with their reasons, the problem line under the form ("Cannot launch yet: …", or a
note with its one-click fix), Launch and Queue paper grid enabled or not, and the Evaluation line. The
decisions are the Qt-free form model's (explorer.ui.launch.form_model.LaunchForm: its gate and plan); this
only shows them on explorer.ui.launch.launcher.LauncherPanel's widgets."""

from __future__ import annotations

import html

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.class_fields import CLASS_FIELDS
from explorer.ui.launch.form_fields import mark_invalid
from explorer.ui.launch.form_model import WARNING_COLOR
from explorer.ui.launch.class_balance import BALANCED_LINK
from explorer.ui.launch.small_table import SHORT_RUN_LINK, SMALL_TABLE_LEARNING_RATE

SAVE_CHECKPOINTS_LINK = "save-checkpoints"   # the href of the no-checkpoints note's one-click fix
# Save checkpoints is kept from one form to the next (a cross-validation's folds do without): a plain run launched
# with it off keeps no model, so its curves and figures are all that remain; said by the Launch button
NO_CHECKPOINTS = ("Save checkpoints is off: this run keeps no model to open in the inspectors or predict with "
                  "(its curves and figures only)")


def no_checkpoints_note(cfg: TrainConfig) -> str:
    """:data:`NO_CHECKPOINTS` for a run that saves no checkpoint (``save_checkpoints`` off), else ""."""
    return "" if cfg.save_checkpoints else NO_CHECKPOINTS


class LaunchChecks:
    """Shows the form model's checks of ``panel`` (a LauncherPanel) on its widgets; ``show(cfg)`` after each change."""

    def __init__(self, panel):
        self.panel = panel

    def show(self, cfg: TrainConfig) -> None:
        """What blocks a launch and the notes, on the fields, the problem line, the buttons and the Evaluation line."""
        p = self.panel
        gate = p.form.gate
        refused = [gate.refusal(name, p.form.get(name), preview.result)
                   for name, preview in (("train", p.train_preview), ("dev", p.dev_preview)) if preview.rejected]
        named = p.form.class_fields.refusals(p.form.values)   # classes the training data does not have
        for name in CLASS_FIELDS:
            mark_invalid(p.editors[name], named.get(name, ""))
        refused += list(named.values())
        head = gate.head_refusal(cfg, p.train_preview.result)   # the run would refuse the checkpoint's head
        mark_invalid(p.editors["model"], head)
        refused += [head] if head else []
        check = gate.check(cfg, refused)
        if check.windows is not None:   # red or amber window fields with the reason
            for name, (reason, severity) in gate.window_marks(check.windows).items():
                mark_invalid(p.editors[name], reason, severity)
        p.problem.setText(f"Cannot launch yet: {check.problem}" if check.problem else "")
        p.launch_btn.setEnabled(not check.problem)
        p.grid_btn.setEnabled(not check.problem)
        said = self._eval_note(cfg)
        plan = p.form.plan   # the tooltip also says which past run its rates come from
        if said and said == plan.eval_summary(cfg):   # a run never evaluated: said once, on the problem line
            p.eval_plan.set_texts("")
        else:
            p.eval_plan.set_texts(plan.eval_summary(cfg), plan.eval_preview(cfg), plan.eval_preview_tip(cfg))

    def _eval_note(self, cfg: TrainConfig) -> str:
        """Evaluate every above the run's planned steps (eval_note), or no dev rows at all (no_dev_warning): the
        field in amber with the reason, and the sentence on the problem line when nothing blocks the launch (it
        does not block it), after a SQuAD v2.0 run's training questions without an unanswerable one
        (RunPlan.abstain_warning). Returns the no-dev sentence when the problem line says it (the Evaluation line
        then does not say it again), else ""."""
        p = self.panel
        note = p.form.plan.eval_note(cfg)
        mark_invalid(p.editors["eval_every"], note, "warning")
        no_dev = p.form.plan.no_dev_warning(cfg)   # a run that is never evaluated: Dev fraction in amber too
        mark_invalid(p.editors["dev_fraction"], no_dev, "warning")
        abstain = p.form.plan.abstain_warning(cfg)   # a SQuAD v2.0 run on no unanswerable question
        short = p.form.plan.short_run_warning(cfg)   # a Time budget too short to leave chance at 2e-5
        no_time = p.form.plan.no_time_warning(cfg)   # a Time budget the evaluations alone fill: the run would fail
        mark_invalid(p.editors["time_budget_minutes"], no_time, "warning")
        imbalanced = p.form.plan.imbalance_warning(cfg)   # one class holds most rows and no class weights
        kept = no_checkpoints_note(cfg)   # no model will be left to open
        said = "" if note else no_dev
        note = ". ".join(n.rstrip(".") for n in (no_time, kept, short, imbalanced, abstain, note or no_dev) if n)
        if not note or p.problem.text():
            return ""
        offer = f" <a href='{SHORT_RUN_LINK}'>Use learning rate {SMALL_TABLE_LEARNING_RATE:g}</a>" if short else ""
        offer += f" <a href='{BALANCED_LINK}'>Use class weights \"balanced\"</a>" if imbalanced else ""
        offer += f" <a href='{SAVE_CHECKPOINTS_LINK}'>Save checkpoints</a>" if kept else ""
        p.problem.setText(f"<span style='color:{WARNING_COLOR}'>Note: {html.escape(note)}.</span>{offer}")
        return said

    def link(self, href: str) -> None:
        """A link on the problem line: the short run's learning rate or balanced class weights taken, as if typed."""
        p = self.panel
        if href == SHORT_RUN_LINK:
            p.editors["learning_rate"].set(SMALL_TABLE_LEARNING_RATE)
            p._field_changed("learning_rate")
        elif href == BALANCED_LINK:
            p.editors["class_weights"].set("balanced")
            p._field_changed("class_weights")
        elif href == SAVE_CHECKPOINTS_LINK:
            p.editors["save_checkpoints"].set(True)
            p._field_changed("save_checkpoints")
