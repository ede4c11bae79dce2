"""A task switch on the launcher form (explorer.ui.launch.form_model.LaunchForm), Qt-free: the new task's recipe
defaults on the fields the user did not edit, data files of another reader cleared, files whose labels mean
something else kept and named, the other task's values put aside, a run name not typed cleared, and the banner's
sentence saying it all; a preset's training settings the user did not change go with the preset. Each function
takes the form and changes its values through :meth:`LaunchForm.set`.
"""

from __future__ import annotations

import html

from explorer.core.specs.tasks import find_task_facts
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.field_specs import FIELDS, applies, restricted
from explorer.ui.launch.kept_settings import KEPT_SETTINGS, forget_best_metric, kept_note
from explorer.ui.launch.presets import RECIPE_FIELDS

__all__ = ["clear_run_name", "switch_task"]


def switch_task(form, task: str) -> None:
    """The task's recipe defaults on the fields not edited; data files of another reader cleared unless the
    user picked them; files of the same reader whose labels mean something else kept and named; Best
    checkpoint by back to automatic (the new task's metric) and the other task's values put aside
    (``_clear_other_task_values``); the note says it all, and names the settings kept from before
    (kept_settings.kept_note)."""
    from explorer.core.specs.tasks import task_defaults

    if not task or task == form.task:
        return
    try:
        defaults = task_defaults(task)
    except KeyError:
        return
    old, form.task = form.task, task
    old_facts, new_facts = find_task_facts(old), find_task_facts(task)
    # data files a preset or a loaded config put in for another kind of data (SQuAD JSON for a table task)
    # cannot feed this task: cleared, unless the user picked them
    other_data = (old_facts is not None and new_facts is not None and old_facts.data_kind != new_facts.data_kind)
    cleared = [n for n in ("train", "dev") if other_data and n not in form.edited and form.values[n]]
    # the same reader but labels that mean something else: the files stay, and the banner says which task
    # they were chosen for until they are changed
    kept_files = _files_for_other_labels(form, new_facts, cleared)
    for name, value in defaults.items():
        if name not in form.edited:
            form.set(name, value)
    for name in cleared:
        form.set(name, "")
    if form.preset:   # the previous task's preset no longer applies: nor do the settings it brought
        _drop_preset_settings(form)
    form.fit_eval_every()   # the evaluations per epoch of the new task, on the training file it keeps
    stale = forget_best_metric(form) + _clear_other_task_values(form, task)
    kept = sorted(set(defaults) & form.edited)
    what = f"{new_facts.label if new_facts else task} defaults"
    note = (f"The preset {form.preset} was for {old_facts.label if old_facts else old} and no longer applies: "
            if form.preset else "")
    form.preset = ""
    form.switch_note = (f"{note}{what} for the recipe" + (f" (your {', '.join(kept)} kept)" if kept else "")
                        + (f"; the previous form's {', '.join(stale[:-1])}{' and ' if len(stale) > 1 else ''}"
                           f"{stale[-1]} cleared" if stale else ""),
                        cleared, old_facts.label if old_facts else old, kept_files)
    form.kept_note = kept_note(form.values, form.edited)   # the other settings the new task keeps, named
    misfit = _columns_for_new_task(form, new_facts)
    if misfit:
        form.kept_note = (f"{form.kept_note}; " if form.kept_note else "Kept from before: ") + misfit
    form.compose_note()


def text_column_range(facts) -> tuple[int, int]:
    """(fewest, most) text columns a task reads: a pair task 2, regression and multi-label 1 or 2, else 1."""
    if facts is not None and facts.pair:
        return 2, 2
    return (1, 2) if facts is not None and facts.takes_pairs else (1, 1)


def _columns_for_new_task(form, new_facts) -> str:
    """Text / label columns the data preview guessed for the previous task (not typed since) are cleared and
    guessed again for the new one (a regression's two texts and score column are not a single-sentence task's);
    typed text columns of a count the new task does not read stay, and the returned words name them with the fix
    ("" when they fit)."""
    regained = False
    for name in ("text_columns", "label_column"):
        value = form.values[name]
        if name in form.guessed and (not value or form.guessed[name] == value):   # still the guess: guessed again
            if value:
                form.set(name, getattr(TrainConfig(), name))
                form.edited.discard(name)
            form.guessed.pop(name)
            regained = True
    if regained:
        form.guessed_for = None   # the data check guesses this file's columns again, for the new task
    texts = [c for c in form.values["text_columns"] or [] if c]
    fewest, most = text_column_range(new_facts)
    if not texts or fewest <= len(texts) <= most:
        return ""
    label = new_facts.label if new_facts is not None else form.task
    want = str(fewest) if fewest == most else f"{fewest} or {most}"
    return html.escape(f"text columns {', '.join(texts)}, but {label} reads {want} text column"
                       f"{'' if most == 1 else 's'}: choose {want} under Text columns")


def _drop_preset_settings(form) -> None:
    """The training settings of the previous task's preset (a form is named by a preset only while every recipe
    field holds the preset's value: presets.describe_preset) that the user did not change go back to their
    defaults, as its recipe gives way to the new task's: the offline default's dropout 0 is not a Single sentence
    run's. Those the user set stay and are named in the banner (kept_settings.kept_note); Evaluate every is the
    task's default already, fitted to the data once it is counted (LaunchForm.fit_eval_every)."""
    defaults = TrainConfig()
    for name in set(KEPT_SETTINGS) & set(RECIPE_FIELDS):
        if name not in form.edited and form.values[name] != getattr(defaults, name):
            form.set(name, getattr(defaults, name))


def _files_for_other_labels(form, new_facts, cleared: list[str]) -> list[tuple[str, str, str]]:
    """(split, path, task label) of the data files still in the form that were set for a task of the same
    reader whose labels mean something else (SST-2's 0/1 classes kept for Regression)."""
    out = []
    for split in ("train", "dev"):
        path, origin = form.values[split], find_task_facts(form.file_task.get(split, ""))
        if not path or split in cleared or origin is None or new_facts is None:
            continue
        if origin.data_kind == new_facts.data_kind and origin.head is not new_facts.head:
            out.append((split, path, origin.label))
    return out


def _clear_other_task_values(form, task: str) -> list[str]:
    """A new task: a field that is not its setting shows its default, greyed (a greyed F1 classes must not
    read FAVOR, AGAINST on a Regression form; config() leaves such values out anyway); its value is kept
    aside (``parked``) and comes back when a task uses the field again. A Run name the user did not type
    since the form was filled or last launched (the previous run's name) is cleared; returns what was
    cleared."""
    defaults = TrainConfig()
    for spec in FIELDS:
        if not restricted(spec):
            continue
        value, default = form.values[spec.name], getattr(defaults, spec.name)
        if not applies(spec, task):
            if value != default:   # kept out of sight, back when a task uses it again
                form.parked[spec.name] = value
                form.set(spec.name, default)
        elif spec.name in form.parked:
            kept = form.parked.pop(spec.name)
            if value == default:
                form.set(spec.name, kept)
    return clear_run_name(form)


def clear_run_name(form) -> list[str]:
    """A Run name the user did not type since the form was filled or last launched (the previous run's, of
    another task or file) is cleared: a new run gets a new name, not "stance lr5e-5-2" for a run on another
    table. Returns what was cleared (["Run name (…)"] or [])."""
    run_name = form.values["run_id"]
    if not run_name or "run_id" in form.edited:
        return []
    form.set("run_id", "")
    return [html.escape(f"Run name ({run_name})")]

