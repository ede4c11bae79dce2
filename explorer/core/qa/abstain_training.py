"""Which SQuAD questions a Train cap keeps, and whether a model was trained to abstain.

A Train cap on SQuAD data keeps a seeded sample of the questions stratified by answerable / unanswerable
(explorer.core.data.sample.capped_rows, as the Train cap of a table stratifies by class), drawn across the whole
file: a file's first questions all come from its first articles, which may hold no unanswerable question at all.

A model whose training questions held no unanswerable one (SQuAD v1.1, or v2.0 data with none, or none kept by
a cap) never learnt its no-answer score: :func:`no_abstain_warning` is the one sentence the launcher and the
τ on dev set page show for it, decided by :func:`never_trained_to_abstain` from what the run trained on.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.data.sample import capped_rows
from explorer.core.specs.run_presets import ABSTAIN_PRESET_HINT

TRAIN_UNANSWERABLE_KEY = "train_unanswerable"   # the run's ``started`` event: unanswerable training questions


def capped_questions(is_impossible, cap: int, seed: int) -> list[int]:
    """The indices (file order) of the questions a Train cap of ``cap`` keeps: the first ``cap`` of a seeded order
    stratified by ``is_impossible`` (one bool per question), so the kept questions hold the file's share of
    unanswerable ones (and at least one when the file has any and ``cap`` >= 2); every question when ``cap`` <= 0
    or >= their number. The same seed gives the same questions."""
    flags = [bool(x) for x in is_impossible]
    return capped_rows(len(flags), cap, seed, flags)


def cap_line(n_questions: int, kept: int, kept_unanswerable: int) -> str:
    """'600 of 4,719 questions (44 unanswerable) used: Train cap', what the launcher and the run's log say."""
    return f"{kept:,} of {n_questions:,} questions ({kept_unanswerable:,} unanswerable) used: Train cap"


def capped_counts(is_impossible, cap: int, seed: int) -> tuple[int, int, int]:
    """(questions, questions kept, unanswerable ones kept) of a training file's ``is_impossible`` flags under a
    Train cap of ``cap`` with ``seed`` (:func:`capped_questions`; no cap: every question)."""
    flags = [bool(int(x)) for x in is_impossible]
    kept = capped_questions(flags, cap, seed)
    return len(flags), len(kept), sum(flags[i] for i in kept)


def launch_warning(n_unanswerable_in_file: int, cap: int) -> str:
    """The launcher's warning for a SQuAD v2.0 run whose training questions hold no unanswerable one: the file
    has none, or (``n_unanswerable_in_file`` > 0) the Train cap ``cap`` keeps none of them."""
    why = (f"Train cap {cap:,} keeps none of the file's {n_unanswerable_in_file:,}" if n_unanswerable_in_file
           else "the training file has none")
    return (f"this run will be trained on no unanswerable question ({why}). Its no-answer score is never "
            "trained, so τ on its checkpoints is uncalibrated and their no-answer figures mean little; use training "
            "data with unanswerable questions" + (" or a larger Train cap" if n_unanswerable_in_file else "") + ".")


def never_trained_to_abstain(version: str, train_unanswerable: int | None) -> bool:
    """True when a QA model never saw an unanswerable training question: a SQuAD v1.1 task, or a run whose
    training questions held none (``train_unanswerable`` 0; None: not recorded, decided by the task alone)."""
    return version == "v1.1" or (train_unanswerable is not None and int(train_unanswerable) == 0)


def no_abstain_warning(version: str, train_unanswerable: int | None, label: str = "", *,
                       subject: str = "this model") -> str:
    """The warning for a model that never saw an unanswerable training question ("" for one that did): its
    no-answer score was never trained, so a τ chosen on it is uncalibrated. ``label``: the task's name as shown
    ("SQuAD v1.1"); ``subject``: "this model" or "this checkpoint". It ends with the way out, the offline SQuAD 2.0
    preset (explorer.core.specs.run_presets.ABSTAIN_PRESET_HINT)."""
    if not never_trained_to_abstain(version, train_unanswerable):
        return ""
    if version == "v1.1":
        why = f"was fine-tuned on {label or 'SQuAD v1.1'}, where every question has an answer"
    else:
        why = "was trained on no unanswerable question"
    return (f"Warning: {subject} {why}. Its no-answer score was never trained, so τ here is uncalibrated and its "
            "no-answer figures (HasAns / NoAns trade-off, the best τ) mean little; use a model trained with "
            f"unanswerable questions (SQuAD v2.0) for them: {ABSTAIN_PRESET_HINT}.")


def run_train_unanswerable(events) -> int | None:
    """The unanswerable training questions a run's last ``started`` event records; None when it records none
    (a run from before they were counted, or not a QA run)."""
    for event in reversed(list(events or [])):
        if event.get("event") == "started":
            value = event.get(TRAIN_UNANSWERABLE_KEY)
            return int(value) if isinstance(value, (int, float)) else None
    return None


def checkpoint_train_unanswerable(path: str | Path) -> int | None:
    """The unanswerable training questions of the run a checkpoint belongs to, as its ``started`` event records
    them (:func:`run_train_unanswerable`; a remote run's local mirror for a checkpoint inspected on its host);
    None outside a run or when the run does not record them."""
    from explorer.core.remote.on_host import run_on_host
    from explorer.core.runs.layout import run_dir_of
    from explorer.core.runs.reading import read_run_events

    if not path:
        return None
    run = run_on_host(str(path))
    run_dir = Path(run.local_dir) if run is not None else run_dir_of(path)
    if run_dir is None:
        return None
    events, _notes = read_run_events(run_dir, steps="last")
    return run_train_unanswerable(events)
