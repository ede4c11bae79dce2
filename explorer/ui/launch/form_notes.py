"""Parts of the launcher form's rules (explorer.ui.launch.form_model.LaunchForm) that stand alone, Qt-free: the
banner's sentence on data files kept from a task whose labels mean something else, the Label names hint,
F1 classes filled for data whose field quotes an average of some classes' F1 (SemEval-2016 stance's F_avg),
No header row ticked for a file whose first line is data, and a run's checkpoint as Base model set back for new
data.
"""

from __future__ import annotations

import html
from pathlib import Path

from explorer.core.specs.tasks import find_task_facts

__all__ = ["F1ClassesOffer", "NoHeaderTick", "drop_guess_note", "guessed_columns", "held_out_rows_seen_note", "kept_files_note",
           "label_names_hint", "reset_run_checkpoint"]


def kept_files_note(values: dict, kept: list[tuple[str, str, str]]) -> str:
    """'; the train and dev files (train.tsv, dev.tsv) were chosen for <their task>: check that they hold a
    number (score) per row, or choose this task's data' for the files of ``kept`` ([(split, path, task label)])
    still as they were at the switch (``values``: the form's values)."""
    still = [(split, path, label) for split, path, label in kept if values[split] == path]
    if not still:
        return ""
    facts = find_task_facts(values["task"])
    holds = (facts.head.label_words if facts else "") or "this task's labels"   # HeadSpec.label_words
    names = ", ".join(html.escape(Path(path).name) for _, path, _ in still)
    splits = " and ".join(split for split, _, _ in still)
    labels = " / ".join(dict.fromkeys(html.escape(label) for _, _, label in still))
    many = len(still) > 1
    return (f"; the {splits} file{'s' if many else ''} ({names}) {'were' if many else 'was'} chosen for {labels}: "
            f"check that {'they hold' if many else 'it holds'} {holds}, or choose this task's data")


def guessed_columns(form, guess: dict, type_in) -> str:
    """Columns guessed from a file's values (core.data.columns_guess.guess_columns_from_values, label_by_values) for
    ``form``'s empty pickers (a LaunchForm; ``type_in(name, value)``), once per training file: without a header its
    text and label columns; with one, the label column when no column has a usual label name (an "Emotion" column
    of six feelings), and the text columns when no column has a usual text name (an "email" column of the longest
    texts: the guess shown is what the data check reads). Text columns are typed in; the label column stays a guess
    (``form.guessed``, the picker's grey "guessed: …" as every other guess), which the form's config reads until
    the person picks a column. A guess by names is left to the run (the same rule reads the header there). Returns
    the banner's sentence ("" when nothing was filled)."""
    basis = guess.get("basis") or ""
    train = form.values["train"]
    if not basis or form.guessed_for == train:
        return ""
    headed = not form.values["no_header"]
    texts, label = list(guess.get("text_columns") or []), guess.get("label_column") or ""
    filled: list[str] = []
    if texts and (not headed or guess.get("texts_by_values")) and not form.values["text_columns"]:
        type_in("text_columns", texts)
        form.guessed["text_columns"] = list(texts)
        filled.append(f"Text columns {', '.join(texts)}")
    if label and not form.values["label_column"]:   # shown as the picker's "guessed: …", read by config() until
        form.guessed["label_column"] = label          # the person picks a column: a guess never looks chosen
        filled.append(f"Label column {label}")
    form.guessed_for = train
    if not filled:
        return ""
    if headed:
        named = "a text" if guess.get("texts_by_values") and filled[0].startswith("Text") else "a label"
        named += " or a label" if len(filled) > 1 else ""
        return html.escape(f"No column is named like {named}: {' and '.join(filled)} guessed from the first rows "
                           f"({basis}); check {'them' if len(filled) > 1 else 'it'} against the preview")
    return html.escape(f"No header row: {' and '.join(filled)} guessed from the first rows ({basis}); "
                       "check them against the preview")


def drop_guess_note(form, name: str) -> None:
    """The person set picker ``name`` (label or text columns) to a column other than the one guessed: the banner's
    "… guessed from the first rows" sentence (``form.guess_note``, in ``form.file_note``) no longer holds and goes."""
    if not form.guess_note or form.values.get(name) in ("", [], None, form.guessed.get(name)):
        return
    note = form.guess_note
    form.file_note, form.guess_note = form.file_note.replace(f". {note}", "").replace(note, ""), ""
    form.compose_note()


def label_names_hint(unnamed: int) -> str:
    """The Label names placeholder when the data's classes are ids 0..K-1 (``unnamed`` = K): where their
    names go; "" when the classes have names."""
    ids = ", ".join(str(i) for i in range(min(unnamed, 4))) + (", …" if unnamed > 4 else "")
    return (f"e.g. negative,positive (the labels are {ids})" if unnamed == 2 else
            f"a name per class, comma-separated (the labels are {ids})" if unnamed else "")


class F1ClassesOffer:
    """F1 classes filled by a rule: the training data's classes are a field's whose figure averages some classes'
    F1 (SemEval-2016 stance: FAVOR, AGAINST, NONE -> F_avg over FAVOR, AGAINST; core.specs.metrics.
    field_f1_classes). ``offered``: (training file, the classes filled) or None."""

    def __init__(self):
        self.offered: tuple[str, list[str]] | None = None

    def offer(self, form, class_names: list[str]) -> str:
        """Fill ``form``'s F1 classes (a LaunchForm) when they are empty and not the user's and its task reports
        f_avg, once per training file, so the run reports the field's figure. Returns the banner's sentence ("":
        nothing filled)."""
        from explorer.core.specs.metrics import field_f1_classes
        from explorer.core.specs.tasks import emitted_metrics

        train = form.values["train"]
        chosen = list(field_f1_classes(class_names))
        if (not chosen or form.values["f1_classes"] or "f1_classes" in form.edited
                or "f_avg" not in emitted_metrics(form.values["task"])
                or (self.offered is not None and self.offered[0] == train)):
            return ""
        form.set("f1_classes", chosen)
        self.offered = (train, chosen)
        return html.escape(f"F1 classes {', '.join(chosen)}: the labels are SemEval-2016 stance's, so the run "
                           "reports F_avg, the mean F1 of those two (the data's official figure)")

    def forget(self, form) -> None:
        """A new training file: F1 classes filled for the previous one go (they name classes the new data may not
        have; the run would refuse them); F1 classes the user typed stay."""
        if self.offered is not None and "f1_classes" not in form.edited \
                and form.values["f1_classes"] == self.offered[1]:
            form.set("f1_classes", [])
        self.offered = None


class NoHeaderTick:
    """No header row ticked by a rule: the data check found the training file's first line is data
    (core.data.header_row.first_line_is_data: STS-B's first line holds numbers), so the file is read as the
    run must read it instead of being refused. Once per training file, and never over a person's choice: a file
    whose No header row the user set (ticked or unticked) or a loaded config gave is left as it is.
    ``decided_for``: the training file whose No header row is settled."""

    def __init__(self):
        self.decided_for: str | None = None

    def settled(self, train: str) -> None:
        """A config was loaded, or the user set No header row: the setting stands for training file ``train``."""
        self.decided_for = train

    def offer(self, form, reason: str) -> str:
        """Tick ``form``'s No header row (a LaunchForm) when ``reason`` (the data check's "header_is_data") says the
        first line is data and nothing settled it for this file. Returns the banner's sentence ("" when not
        ticked)."""
        train = form.values["train"]
        if not reason or not train or form.values["no_header"] or self.decided_for == train:
            return ""
        form.set("no_header", True)
        self.decided_for = train
        return html.escape(f"No header row ticked: {reason} (untick it if the first line names the columns)")


def reset_run_checkpoint(form, train: str) -> str:
    """A new training file ``train``: a Base model that is a run's checkpoint (``<run>/checkpoints/best``, as
    "Fine-tune on reviewed rows" sets it to continue that run on its data) and that the user did not choose goes
    back to the model that run started from: the checkpoint's head was trained for the run's classes, not the new
    file's. Returns the banner's words ("" when Base model stays: chosen by the user, not a run's checkpoint, the
    run trained on ``train`` itself, or its config unreadable)."""
    import json

    from explorer.core.runs.layout import config_file, run_dir_of

    model = str(form.values.get("model") or "")
    run = run_dir_of(model) if model and "model" not in form.edited else None
    if run is None:
        return ""
    try:
        config = json.loads(config_file(run).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    first = str(config.get("model") or "") if isinstance(config, dict) else ""
    if not first or first == model or Path(str(config.get("train") or "")).expanduser() == Path(train).expanduser():
        return ""
    form.set("model", first)
    shown = "/".join(Path(model).parts[-3:])
    return html.escape(f"Base model {shown} (back to {first}, the model its run started from)")


def held_out_rows_seen_note(values: dict) -> str:
    """A warning when Base model is a run's checkpoint (Fine-tune on reviewed rows sets one to continue that
    run on its own rows plus the reviewed ones) and the dev rows are to be held out of the training file: that
    checkpoint was trained on rows of it, so held-out rows are not new to it and the dev figures come out
    optimistic (a stance checkpoint scored 69.96 F_avg at step 0 on such rows, 62.10 on rows it never saw);
    "" otherwise."""
    from explorer.core.runs.layout import run_dir_of

    model = str(values.get("model") or "")
    run = run_dir_of(model) if model and not values.get("dev") else None
    if run is None:
        return ""
    return (f"Base model is the checkpoint of run {run.name}: rows held out of this training file may be rows it "
            "was trained on, so its dev figures would be optimistic; keep that run's dev file, or choose "
            "another Base model")
