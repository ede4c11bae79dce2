"""What the τ on dev set page shows and decides, without Qt: which dev file a run checkpoint brings, how long a
study will take, the summary and τ table of a study's figures, the figures at the chosen τ, and the questions
nearest it. explorer.ui.inspectors.dev_view draws it. Every number comes from explorer.core.qa.scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.qa.scores import grid_text, tau_sweep
from explorer.core.qa.tau_study import questions_near

NEAR_ROWS = 100
ASSUMED_QPS = 10.0   # questions/s before the first study here measures it: the bundled encoder on a 2-core CPU
UNTRAINED_HEAD_NOTE = ("Honest note: this model's QA head is freshly initialised (random), so its score_diff values, "
                       "τ and F1 here mean nothing until it is fine-tuned.")
_question_counts: dict[tuple, int] = {}


def no_answer_training_note(checkpoint: str) -> str:
    """A warning when the checkpoint never saw an unanswerable training question: its training task had none
    (SQuAD v1.1), or its run's training questions held none (SQuAD v2.0 data without any, or none kept by a Train
    cap; the count its run recorded). Its score_diff was never taught to tell answerable from unanswerable, so a
    τ chosen on it is uncalibrated (explorer.core.qa.abstain_training.no_abstain_warning). The task comes from the
    checkpoint's run (its config.json), else from the known hub checkpoints; "" when the task is unknown or it
    trained with no-answer questions."""
    from explorer.core.models.checkpoint_windows import run_task_of
    from explorer.core.qa.abstain_training import checkpoint_train_unanswerable, no_abstain_warning
    from explorer.core.specs.hub_checkpoints import preset_for
    from explorer.core.specs.tasks import find_task_facts

    if not checkpoint:
        return ""
    task = run_task_of(checkpoint)
    if task is None and preset_for(checkpoint) is not None:
        task = preset_for(checkpoint).task
    facts = find_task_facts(task or "")
    if facts is None or not facts.is_qa:
        return ""
    version = facts.squad_version if facts.has_no_answer else "v1.1"
    return no_abstain_warning(version, checkpoint_train_unanswerable(checkpoint), facts.label,
                              subject="this checkpoint")


def run_dev(checkpoint: str):
    """The dev file of the run a checkpoint belongs to (explorer.core.models.checkpoint_windows.RunDevFile: as the
    user gave it, and the file read, a remote run's copy on its host), when that run is SQuAD 2.0 (None otherwise:
    a v1.1 dev file has no unanswerable question, so a τ study on it has no NoAns side)."""
    from explorer.core.models.checkpoint_windows import checkpoint_run_config, run_dev_file as dev_file_of
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(str(checkpoint_run_config(checkpoint).get("task") or "")) if checkpoint else None
    if facts is None or facts.squad_version != "v2.0":
        return None
    return dev_file_of(checkpoint)


def run_dev_file(checkpoint: str) -> str:
    """The dev file of :func:`run_dev` as the page shows it (as the user gave it); "" when there is none."""
    dev = run_dev(checkpoint)
    return dev.shown if dev is not None else ""


def count_questions(path: str) -> int | None:
    """Questions in a SQuAD JSON file, counted from its bytes (fast, cached on path/size/mtime; for the
    time estimate only). None when the file cannot be read."""
    try:
        p = Path(path).expanduser()
        st = p.stat()
        key = (str(p), st.st_size, st.st_mtime_ns)
        if key not in _question_counts:
            _question_counts[key] = p.read_bytes().count(b'"question"')
        return _question_counts[key]
    except OSError:
        return None


def estimate_line(n_questions: int | None, cap: int, measured_qps: float | None) -> str:
    """'≈ 6 min 40 s for 4,000 questions at 10.0 questions/s (...)' for the chosen file and cap, at the rate
    measured here (``measured_qps``) or, before any, ASSUMED_QPS said to be a guess; "" without a file."""
    if not n_questions:
        return ""
    n = min(n_questions, cap) if cap else n_questions
    qps = measured_qps or ASSUMED_QPS
    seconds = n / qps
    how = "measured here by the last run" if measured_qps else "a guess until the first run here measures it"
    when = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    text = f"≈ {when} for {n:,} of {n_questions:,} questions at {qps:.1f} questions/s ({how})"
    if seconds > 120 and not cap:
        text += "; set \"first N questions\" to try a part first"
    return text


def windows_note(window) -> str:
    """What the estimate adds for a run checkpoint's window settings (a WindowSettings read from its run)."""
    return (f". Windows as the run trained: max_seq_length {window.max_seq_length}, doc_stride {window.doc_stride}, "
            f"max_query_length {window.max_query_length}")


COMPUTING_NOTE = "computing the τ curves …"


def running_line(source: str, path: str) -> str:
    """The status line while a study runs: the model by its last three path parts ("…/<run>/checkpoints/best"),
    so the line stays as short as the page's other lines and the curves below keep their place."""
    parts = Path(source).parts
    model = source if len(parts) <= 3 else "…/" + "/".join(parts[-3:])
    return f"running {model} on {Path(path).name} …"


def study_line(study) -> str:
    """The status line once a TauStudy is in: how many questions, of which file and model, how it was computed."""
    how = "from the cache (instant)" if study.from_cache else f"inference {study.seconds:.1f} s"
    return (f"{len(study)} questions of {Path(study.data_path).name}, model {study.source}: {how}."
            + (f" Note: {study.note}" if study.note else ""))


def summary_lines(figures) -> list[str]:
    """The summary under the τ table (HTML lines): the figures at τ = 0, what a best τ that abstains everywhere
    means, a τ at the grid's edge, and the honest τ (chosen on one half, scored on the other)."""
    o = figures.official
    g0 = figures.grid.at(0.0)
    parts = [f"<b>at τ = 0</b>: EM {o['exact_match']:.2f}, F1 {o['f1']:.2f}"]
    if "HasAns_f1" in o:
        parts.append(f"HasAns_f1 {o['HasAns_f1']:.2f} ({o['HasAns_total']} q)")
    if "NoAns_f1" in o:
        parts.append(f"NoAns_f1 {o['NoAns_f1']:.2f} ({o['NoAns_total']} q)")
    parts.append(f"answers {g0['answer_rate']:.1f}% of questions")
    lines = [", ".join(parts)]
    grid = figures.grid
    best = grid.at(grid.best_tau)
    if "NoAns_total" in o and (note := _abstains_note(grid, best["answer_rate"], o)):
        lines.append(note)
    h = figures.honest
    if h is not None:
        lines.append(f"<b>honest τ</b>: chosen on half A ({h['n_A']} q) τ = {h['tau_A']:+.2f} → F1 on half B "
                     f"{h['f1_B_at_tau_A']:.2f}; chosen on B τ = {h['tau_B']:+.2f} → F1 on A "
                     f"{h['f1_A_at_tau_B']:.2f}; honest F1 <b>{h['honest_f1']:.2f}</b> (the figure to quote) vs "
                     f"{h['dev_best_f1']:.2f} when τ is chosen and scored on the same questions"
                     + (f". <b>{note}</b>" if (note := honest_abstains_note(figures)) else ""))
    return lines


def honest_abstains_note(figures) -> str:
    """What the figure to quote means when the honest τ answers almost no question (each half's τ at most
    NEAR_ABSTAINING % of the questions, the honest F1 within NEAR_ABSTAINING points of the all-no-answer share):
    'this τ answers 1 of 300 questions: the figure equals answering no question at all, NoAns share 56.33', so
    it is not quoted as the model's result; '' otherwise."""
    h, sc = figures.honest, figures.scores
    n = len(sc.score_diff)
    if h is None or not n:
        return ""
    taus = sorted({h["tau_A"], h["tau_B"]})
    answered = [int((sc.score_diff > t).sum()) for t in taus]
    share = 100.0 * float((~np.asarray(sc.has_ans, dtype=bool)).sum()) / n
    if max(answered) * 100.0 / n > NEAR_ABSTAINING or abs(h["honest_f1"] - share) > NEAR_ABSTAINING:
        return ""
    if len(taus) == 1:
        which = f"this τ answers {answered[0]} of {n} questions"
    else:
        which = (f"these τ answer {answered[0]} and {answered[1]} of {n} questions "
                 f"(τ {taus[0]:+.2f} and {taus[1]:+.2f})")
    same = "equals" if f"{h['honest_f1']:.2f}" == f"{share:.2f}" else "is about"
    return (f"{which}: the figure {same} answering no question at all, NoAns share {share:.2f}; it measures "
            "abstaining, not the model's answers")


NEAR_ABSTAINING = 1.0   # % of questions answered, and F1 points above the all-no-answer baseline: "about abstaining"


def _abstains_note(grid, answer_rate: float, official: dict) -> str:
    """What a best τ that answers no question, or almost none (at most NEAR_ABSTAINING % of them, its F1 within
    NEAR_ABSTAINING points of the all-no-answer baseline), means: its F1, and an honest F1 near it, is the figure
    of never answering; '' otherwise."""
    total = official.get("HasAns_total", 0) + official["NoAns_total"]
    baseline = 100.0 * official["NoAns_total"] / total if total else 0.0
    where = (f"the all-no-answer baseline (the {official['NoAns_total']} unanswerable of {total} questions)")
    if answer_rate == 0:
        return (f"<b>note</b>: the best τ on the grid ({grid.best_tau:+.2f}) answers no question: its F1 "
                f"{grid.best_f1:.2f} is {where}; the model's answers do not beat abstaining yet")
    if answer_rate <= NEAR_ABSTAINING and grid.best_f1 - baseline <= NEAR_ABSTAINING:
        return (f"<b>note</b>: the best τ on the grid ({grid.best_tau:+.2f}) answers {answer_rate:.1f}% of the "
                f"questions: its F1 {grid.best_f1:.2f} is about {where}, {baseline:.2f}; the model's answers do not "
                "beat abstaining yet, and an F1 quoted at such a τ says so, not how well it answers")
    return ""


def tau_rows(figures, chosen: float) -> list[tuple[str, str, str, str]]:
    """The τ table: (τ, value in score_diff units, F1 %, what it is) for the chosen τ, the best on the grid, the
    official search's and the honest ones."""
    f, o = figures, figures.official
    rows = [("chosen τ", f"{chosen:+.2f}", f"{tau_sweep(f.scores, taus=[chosen]).f1[0]:.2f}",
             "the black line: drag it or type it; Questions near τ is sorted around it"),
            ("best τ on the grid", f"{f.grid.best_tau:+.2f}", f"{f.grid.best_f1:.2f}",
             f"red dashed line and star: the curve's highest F1 (τ from {grid_text(f.grid.taus)})")]
    if "best_tau" in o:
        thresh = o.get("best_f1_thresh")
        answered = int((f.scores.score_diff > o["best_tau"]).sum())
        if thresh is None:
            what = "evaluate-v2.0's exact search"
        elif answered == 0:
            # evaluate-v2.0's find_best_thresh starts at best_thresh = 0.0 and moves it only when a threshold
            # beats answering none; here none did, so its 0.0 is that start, not a threshold on either scale
            top = float(np.max(f.scores.score_diff)) if len(f.scores.score_diff) else float("nan")
            what = ("evaluate-v2.0's exact search on all of dev: answering no question scores best, so this τ "
                    f"lies above the highest score_diff ({top:+.3f}) and answers none. The script's own output, "
                    f"best_f1_thresh, reads {thresh:.3f} here: not a threshold but the value its search starts "
                    "from, kept because no threshold beat answering none (read as one, on its null-odds scale = "
                    f"−score_diff, it would answer every question with score_diff ≥ {-thresh + 0.0:+.3f})")
        else:
            from explorer.core.specs.metric_display import threshold_relation

            what = (f"evaluate-v2.0's exact search ({answered} question{'s' if answered != 1 else ''} answered); "
                    + threshold_relation(o["best_tau"], thresh))
        rows.append(("official best τ", f"{o['best_tau']:+.3f}", f"{o['best_f1']:.2f}", what))
    h = f.honest
    if h is not None:
        rows.append(("honest τ (two halves)", f"{h['tau_A']:+.2f} / {h['tau_B']:+.2f}",
                     f"{h['honest_f1']:.2f}", "the F1 to quote: τ chosen on one half of the questions, F1 "
                     "scored on the other half"))
    return rows


@dataclass(frozen=True)
class AtTau:
    """The figures at one τ: the chosen-τ row of the τ table and the line beside the τ box."""

    tau: str
    f1: str
    line: str


def at_tau(figures, tau: float) -> AtTau:
    """The figures of the study at ``tau`` (one point of explorer.core.qa.scores.tau_sweep)."""
    at = tau_sweep(figures.scores, taus=[tau])
    return AtTau(tau=f"{tau:+.2f}", f1=f"{at.f1[0]:.2f}",
                 line=(f"F1 {at.f1[0]:.2f}, EM {at.exact_match[0]:.2f}, HasAns_f1 {at.HasAns_f1[0]:.2f}, "
                       f"NoAns_f1 {at.NoAns_f1[0]:.2f}, answers {at.answer_rate[0]:.1f}%"))


@dataclass(frozen=True)
class NearRow:
    """A row of the questions near τ: its cells (score_diff, |score_diff − τ|, at τ, gold, best span, F1 at τ,
    question) and whether its F1 at τ is good (>= 50)."""

    cells: tuple
    good: bool


def questions_near_tau(study, figures, tau: float, n: int = NEAR_ROWS) -> tuple[np.ndarray, list[NearRow]]:
    """The ``n`` questions whose score_diff is nearest ``tau`` (indices into ``figures.scores``) and their rows."""
    sc = figures.scores
    near = questions_near(sc.score_diff, tau, n)
    index_of = {q: k for k, q in enumerate(study.ids)}
    rows = []
    for i in near:
        qid = sc.ids[i]
        d = study.decodings[qid]
        answered = bool(sc.score_diff[i] > tau)
        f1 = sc.f1_span[i] if answered else sc.f1_null[i]
        gold = study.gold[qid]
        rows.append(NearRow(cells=(f"{sc.score_diff[i]:+.3f}", f"{abs(sc.score_diff[i] - tau):.3f}",
                                   "answer" if answered else "no answer", gold[0] if gold else "(no answer)",
                                   d.best_text, f"{100 * f1:.0f}", study.questions[index_of[qid]]),
                            good=bool(f1 >= 0.5)))
    return near, rows


def near_question(study, figures, near: np.ndarray, row: int) -> tuple[str, str]:
    """(question, passage) of row ``row`` of the questions near τ (``near``: their indices)."""
    qid = figures.scores.ids[near[row]]
    k = study.ids.index(qid)
    return study.questions[k], study.context(k)
