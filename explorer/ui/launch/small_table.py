"""The launcher form's automatic learning rate for a table of up to a few thousand rows on the bundled encoder, Qt-free.

The task's learning rate (2e-5, the BERT paper's range for BERT-base on GLUE-sized data) is slow for the bundled
6-layer encoder (``bundled:minilm``) on the tables people bring, measured with the task's own recipe (batch 32,
4 epochs, the launcher's 10% stratified dev split; benchmarks/results/small_table_learning_rate.json):

- 400 SST-2 rows (52 steps): dev accuracy 53.0 % (majority 50.5 %) at 2e-5, 72-75 % at 1e-4;
- the SemEval-2016 stance tweets, 2,814 rows (320 steps): F_avg 60.90 and 62.12 at 2e-5, 71.51 and 69.11 at
  1e-4 (seeds 42 and 7); at 2e-5 the first evaluations sit at the majority class;
- 2,114 StockTwits messages (240 steps): macro F1 64.78 and 61.66 at 2e-5, 79.27 and 75.03 at 1e-4.

So while the form's Learning rate is automatic (the task's, not typed) and the training table the data check
counted has fewer than :data:`SMALL_TABLE_ROWS` rows, the form picks :data:`SMALL_TABLE_LEARNING_RATE` and says
why in the banner; a value the user types wins, and the automatic value goes back when the table, model or task
no longer fits the rule. The threshold is the largest measured table (2,814 rows) with some margin: a table of
tens of thousands of rows trains enough steps at 2e-5 and was not measured.

The same fact in steps: what stays at chance is a short run at 2e-5, not the table's size alone (52 optimizer steps
above; a 9,810-row table given a 2.5-minute Time budget trained 69 steps at 2e-5 and predicted one class). So a run
whose Time budget fits fewer than :data:`SHORT_RUN_STEPS` steps at the task's rate gets a warning before Launch
(:func:`short_run_note`), never a silent change of the learning rate: a bigger table's rate is the user's call.
"""

from __future__ import annotations

from explorer.core.models.sources import DEFAULT_SOURCE
from explorer.core.specs.tasks import find_task_facts, tasks_reading

__all__ = ["SHORT_RUN_LINK", "SHORT_RUN_STEPS", "SMALL_TABLE_LEARNING_RATE", "SMALL_TABLE_ROWS", "SmallTableRate", "short_run_note"]

SMALL_TABLE_ROWS = 5_000             # training rows below which the bundled encoder gets SMALL_TABLE_LEARNING_RATE
SMALL_TABLE_LEARNING_RATE = 1e-4     # what learned more on every table measured (400 to 2,814 rows)
SHORT_RUN_LINK = "use-small-table-rate"   # the href of the short run's one-click learning rate
SHORT_RUN_STEPS = 100                # optimizer steps below which 2e-5 stayed at chance (52 and 69 did), with margin


def short_run_note(values: dict, steps: int, per_epoch: int, budget_minutes: float, learning_rate: float) -> str:
    """The warning for a run of the bundled encoder on a table whose Time budget fits only ``steps`` optimizer
    steps (``per_epoch`` an epoch) at a learning rate below SMALL_TABLE_LEARNING_RATE: such a run usually predicts
    one class (a regression: about the mean score). "" when the run is long enough, the rate high enough, or the model or task another."""
    task = values.get("task", "")
    if (values.get("model") != DEFAULT_SOURCE or find_task_facts(task) is None or task not in tasks_reading("table")
            or not 0 < steps < SHORT_RUN_STEPS or learning_rate >= SMALL_TABLE_LEARNING_RATE or budget_minutes <= 0):
        return ""
    seconds = round(budget_minutes * 60)
    epoch = f" ({steps / per_epoch:.1f} epoch)" if per_epoch > 0 else ""
    stuck = "about the mean score" if find_task_facts(task).is_regression else "one class"
    return (f"In {seconds // 60}:{seconds % 60:02d} about {steps} steps{epoch}: at lr {_rate(learning_rate)} such a "
            f"short run usually predicts {stuck}; a learning rate of {_rate(SMALL_TABLE_LEARNING_RATE)} or a longer "
            "Time budget learns")


class SmallTableRate:
    """Whether the form's Learning rate is the small-table rate it set (``applied``), and the banner's note."""

    def __init__(self):
        self.applied = False
        self.note = ""

    def forget(self) -> None:
        """A config was loaded: its learning rate is its own."""
        self.applied, self.note = False, ""

    def update(self, form) -> bool:
        """Set or put back the Learning rate of ``form`` (a LaunchForm) for what it holds now: the model, the task,
        the rows the run trains on (form.plan.train_rows(), the data check's count, 0 while unknown; at most the
        form's Train cap) and whether the user typed a learning rate. Returns whether the value changed."""
        if "learning_rate" in form.edited:   # the user's own value wins
            self.applied, self.note = False, ""
            return False
        rows = form.plan.train_rows()
        cap = int(form.values.get("train_cap") or 0)
        if rows > 0 and cap > 0:   # a capped big file trains on a small table's rows
            rows = min(rows, cap)
        task = form.values.get("task", "")
        fits = (form.values.get("model") == DEFAULT_SOURCE and 0 < rows < SMALL_TABLE_ROWS
                and find_task_facts(task) is not None and task in tasks_reading("table"))
        changed = False
        if fits and form.values.get("learning_rate") is None:
            form.set("learning_rate", SMALL_TABLE_LEARNING_RATE)
            self.applied = changed = True
        elif not fits and self.applied:
            form.set("learning_rate", None)   # the task's rate again
            self.applied, changed = False, True
        self.note = self._note(rows, task) if self.applied else ""
        return changed

    @staticmethod
    def _note(rows: int, task: str) -> str:
        facts = find_task_facts(task)
        usual = _rate(facts.default_learning_rate) if facts is not None else "the task's"
        small = _rate(SMALL_TABLE_LEARNING_RATE)
        return (f"Learning rate {small}, not {usual}: on {rows:,} training rows the bundled encoder learns more at "
                f"{small} (2,814 stance tweets: F_avg 70.3 against 61.5 at {usual}, two seeds); a learning rate you "
                "type wins")


def _rate(value: float) -> str:
    """A learning rate as the recipes write it: 1e-4, 2e-5."""
    mantissa, _, exponent = f"{value:.0e}".partition("e")
    return f"{mantissa}e{int(exponent)}"
