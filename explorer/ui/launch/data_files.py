"""The launcher form's rules for its data files (explorer.ui.launch.form_model.LaunchForm, Qt-free): a new
training file resets the settings of the previous file's layout and its caps, clears a dev file that belonged to
the previous data and a run checkpoint or run name chosen for it, each said in the banner; emptying Dev data
brings back the usual held-out share where a 0 came with the dev file."""

from __future__ import annotations

import html
from pathlib import Path

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.field_specs import field_spec
from explorer.ui.launch.form_notes import held_out_rows_seen_note, reset_run_checkpoint
from explorer.ui.launch.kept_settings import forget_best_metric, kept_note
from explorer.ui.launch.task_switch import clear_run_name


def new_train_file(form, previous: str | None = None) -> None:
    """A new training file was chosen (after ``previous``): FILE_SETTINGS set for the previous file go back to
    their defaults (the data check then guesses this file's columns), and so do the caps (reset_caps), a
    run's checkpoint as Base model not chosen by the user (form_notes.reset_run_checkpoint), a run name not
    typed (task_switch.clear_run_name) and Best checkpoint by (the new labels' metric), with a word in the banner, which
    also names the settings kept from before (kept_settings.kept_note)."""
    reset_caps(form, previous)
    form.f1_offer.forget(form)
    form.guessed.clear()   # the previous file's guesses: never taken for this file's on a task switch
    for n in form.FILE_SETTINGS:   # set for the previous file: not to come back on a later task switch
        form.parked.pop(n, None)
    defaults = TrainConfig()
    cleared = [n for n in form.FILE_SETTINGS if form.values[n] != getattr(defaults, n)]
    name = html.escape(Path(form.values["train"]).name)
    dev = forget_the_previous_files_dev(form)
    model = reset_run_checkpoint(form, form.values["train"])   # a checkpoint continuing the previous data
    gone = ([f"dev file {html.escape(dev)}"] if dev else []) + ([model] if model else []) + clear_run_name(form)
    gone += forget_best_metric(form)   # chosen for the previous data: the new labels' metric
    form.kept_note = kept_note(form.values, form.edited)   # what the new data keeps from the previous one
    # one short sentence (the banner is a few lines at 1280x800): what went, by name; the fields say the rest
    dev_note = f"; cleared: {', '.join(gone)}" if gone else ""
    if not cleared:   # nothing of another file's is left: a note about the file before would be stale now
        if form.file_note or dev_note or form.caps_note:
            form.file_note = f"Training file {name}: the preview guesses its columns{dev_note}"
        if form.file_note or form.kept_note:
            form.compose_note()
        return
    for n in cleared:
        form.set(n, getattr(defaults, n))
        form.edited.discard(n)
    labels = ", ".join(field_spec(n).label or n for n in cleared)
    form.file_note = f"Training file {name}: the previous file's {labels} reset (the preview guesses them){dev_note}"
    form.compose_note()


def reset_caps(form, previous: str | None = None) -> None:
    """A new training file: caps set for the previous one go back to "all" (0), said in the banner in amber
    until a cap is set again, another config is loaded, or the training file changes again from a file that
    exists (``previous``): the warning was about that file's change. A path typed one key at a time
    ("train.tx", "train.txt") keeps it."""
    from explorer.ui.launch.form_model import WARNING_COLOR   # (form_model imports this module)

    caps = [(n, form.values[n]) for n in form.CAP_SETTINGS if form.values[n]]
    if not caps:
        if previous and Path(previous).is_file():
            form.caps_note = ""
        return
    for n, _ in caps:
        form.set(n, 0)
        form.edited.discard(n)
    said = " and ".join(f"{field_spec(n).label} {value:,}" for n, value in caps)
    form.caps_note = (f"<span style='color:{WARNING_COLOR}'>" + html.escape(
        f"{said}, set for the previous file, went back to all") + "</span>")


def dev_partner(form) -> None:
    """Remember the training file's folder when the dev file is set (the dev file belongs to that data)."""
    train, dev = form.values["train"], form.values["dev"]
    form.dev_home = str(Path(train).parent) if train and dev else None
    form.dev_named = dev or form.dev_named


def dev_taken_away(form, previous: str | None) -> None:
    """The user emptied Dev data (``previous``: the file it held, else the last one set): a Dev fraction of 0 that came with the dev
    file (Fine-tune on reviewed rows sets one beside the first run's dev rows; the field is off beside a dev
    file) gives way to the usual held-out share, so the run is not left without dev rows; a 0 the user typed
    stays. A banner note that names that file (where the dev rows came from) would now say the opposite of
    the Evaluation line, so it gives way to a sentence that the file is cleared."""
    if form.values["dev"]:
        return
    if form.values.get("dev_fraction") == 0 and "dev_fraction" not in form.edited:
        form.set("dev_fraction", None)
    name = Path(str(previous or form.dev_named or "")).name
    form.dev_named = ""
    seen = held_out_rows_seen_note(form.values)
    if seen or (name and html.escape(name) in form.note):
        cleared = (f"Dev data {name} cleared: the run's dev rows now come from Dev fraction (held out of the "
                   "training file), not from it") if name else ""
        form.switch_note, form.file_note = None, "; ".join(t for t in (cleared, seen) if t)
        form.compose_note()


def forget_the_previous_files_dev(form) -> str:
    """A new training file from another folder than the one the dev file was chosen with: a dev file that sat
    beside that training file was its data's (STS-B would train against SST-2's dev.tsv, and Launch be
    refused) and is cleared like the training file's layout; returns its name ("" when it stays)."""
    dev, train, home = form.values["dev"], form.values["train"], form.dev_home
    if not (dev and home and train) or Path(dev).parent != Path(home) or Path(train).parent == Path(home):
        return ""
    form.set("dev", "")
    form.edited.discard("dev")
    if not form.values.get("dev_fraction"):   # a 0 that came with the dev file (the field is off beside one)
        form.set("dev_fraction", None)          # would leave the run without dev rows: the usual held-out share
    return Path(dev).name
