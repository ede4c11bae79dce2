"""Help texts shown inside the app: tooltips for terms and a paragraph for each panel (no Qt here).

GLOSSARY maps a term in its standard name (the names of docs/formulas.md: ``start_logits``,
``null_score``, ``doc_stride``...) to a short plain-language tooltip, with the formula where there is one.
ALIASES maps other spellings a label may use (``s_null``, ``τ``, ``answer rate``, TrainConfig fields such as
``warmup_ratio``) to those names. The training settings' entries come from their TrainConfig ``Setting``
(``explain``, written once beside the field). PANEL_HELP maps a shell panel (Launcher, Runs, Curves) to a
paragraph on what it shows; the inspector pages declare their own help in explorer/ui/inspectors/registry.py.

Sources for the facts: Devlin et al. 2019 (BERT) Sections 3.2, 4.2, 4.3 and Appendix A.3; the official
SQuAD v2.0 evaluation script (evaluate-v2.0.py) for the metrics and the best threshold; Abnar & Zuidema
2020 for attention rollout.
"""

from __future__ import annotations

from explorer.core.specs.metrics import help_texts
from explorer.core.specs.train_config import settings as _settings

GLOSSARY: dict[str, str] = {
    # ---- what the QA head outputs -------------------------------------------------------------
    "start_logits": (
        "One score per token for \"the answer starts here\": start_logits[i] = S·T_i, the dot product of "
        "the learned start vector S with the token's final hidden vector T_i (plus a bias). A softmax over "
        "the window turns them into start probabilities."),
    "end_logits": (
        "One score per token for \"the answer ends here\": end_logits[j] = E·T_j, with a second learned "
        "vector E. The score of the span i..j is start_logits[i] + end_logits[j]."),
    "null_score": (
        "s_null, the score of \"no answer\": start_logits[CLS] + end_logits[CLS], the span that starts and "
        "ends on the [CLS] token. When a passage is split into several windows, the smallest s_null over "
        "the windows is used."),
    "best_non_null_score": (
        "ŝ, the score of the best real span: the maximum of start_logits[i] + end_logits[j] over spans "
        "inside the passage with i ≤ j < i + max_answer_length, searched over the top n_best_size starts "
        "and ends of every window. −∞ when no valid span exists."),
    "score_diff": (
        "score_diff = best_non_null_score − null_score: how much the best span beats \"no answer\". "
        "The model answers iff score_diff > τ."),
    "tau": (
        "τ (tau), the no-answer threshold of SQuAD 2.0: answer with the best span iff "
        "best_non_null_score > null_score + τ. A larger τ makes the model more careful (it answers less "
        "often). The BERT paper picks τ on the dev set to maximise F1."),
    "null_odds": (
        "The value written to null_odds.json for each question: null_score − best_non_null_score "
        "(= −score_diff), the official script's convention, where higher means \"more likely no answer\"."),
    # ---- decoding and windowing settings: from their TrainConfig Settings (below) ------------------
    # ---- metrics: their tooltips are the ``help`` of their rows in core/specs/metrics -------------------
    **help_texts(),
    # ---- the inspectors ----------------------------------------------------------------------------
    "block_flow": (
        "How attention flows between the question, the passage and the special tokens ([CLS], [SEP]) in one "
        "layer: for each token of block A, the sum of its attention weights on the tokens of block B, "
        "averaged over A's tokens and over the heads. Each row sums to 1."),
    "rollout": (
        "Attention rollout (Abnar & Zuidema 2020): an estimate of how much each token draws on each input "
        "token through all layers. Per layer Â = ½(A_mean + I), rows normalised, then the layers are "
        "multiplied from the first to the last."),
    "by_hand_check": (
        "The inspector recomputes the start scores as S·T_i + b from the final hidden states and the QA "
        "head's weights and shows the largest difference from the model's start_logits. It should be about "
        "1e-5 (rounding): the span scores really are these dot products."),
    "watch_examples": (
        "Question/passage pairs probed at every evaluation during training. Their answers, start/end scores "
        "and block flow are stored in the run, so you can see how one example changes as the model learns."),
    "honest_tau": (
        "Choosing τ on the dev set and scoring the same dev set flatters the score. The honest figure splits "
        "the dev questions in two halves: τ is chosen on one half and F1 measured on the other, and vice "
        "versa; the average of the two is a fair estimate."),
    # ---- the training recipe -----------------------------------------------------------------------
    "warmup": (
        "The learning rate rises linearly from 0 to its peak over the first warmup_ratio of the steps "
        "(default 10%), then falls linearly to 0 at the last step, as in the BERT paper."),
    "gradient_clipping": (
        "If the norm of all gradients together exceeds max_grad_norm (default 1.0), they are scaled down to "
        "that norm before the step, which prevents single huge updates. The grad_norm curve shows the norm "
        "before clipping."),
    "grad_norm": "The norm of all gradients together before clipping, logged at every step.",
}
# The training settings explain themselves once, beside their TrainConfig field (Setting.explain).
GLOSSARY.update({name: s.explain for name, s in _settings().items() if s.explain})

ALIASES: dict[str, str] = {
    "s_null": "null_score",
    "null score": "null_score",
    "τ": "tau",
    "τ (tau)": "tau",
    "threshold": "tau",
    "score diff": "score_diff",
    "em": "exact_match",
    "exact match": "exact_match",
    "answer rate": "answer_rate",
    "block flow": "block_flow",
    "attention rollout": "rollout",
    "by-hand check": "by_hand_check",
    "by hand check": "by_hand_check",
    "hidden_check_max_abs_diff": "by_hand_check",
    "byhand_max_abs_diff": "by_hand_check",
    "watch": "watch_examples",
    "watch examples": "watch_examples",
    "honest τ": "honest_tau",
    "the honest τ": "honest_tau",
    "honest τ (half split)": "honest_tau",
    "half split": "honest_tau",
    "warmup_ratio": "warmup",
    "weight decay": "weight_decay",
    "max_grad_norm": "gradient_clipping",
    "gradient clipping": "gradient_clipping",
    "mixed precision": "mixed_precision",
    "length grouping": "length_grouping",
    "dynamic padding": "length_grouping",
    "dev cap": "dev_cap",
    "learning rate": "learning_rate",
    "lr": "learning_rate",
}

PANEL_HELP: dict[str, str] = {
    "Launcher": "",   # built from the form's defaults and the task table: launcher_help()
    "Runs": (
        "Every run in the runs folder, current and past: its status (running, finished, stopped, failed, "
        "cancelled), model, task, best dev metric, number of steps and duration. Select one or several runs "
        "to show their curves side by side; open a run's checkpoint in the inspectors. Stop early finishes "
        "the current step, saves and evaluates; cancel ends the process at once. Each run is a folder with "
        "config.json, events.jsonl and checkpoints/."),
    "Curves": (
        "Training as it happens: the loss at every step (raw, and smoothed so the trend is visible), the "
        "learning rate (it should rise during warmup, then fall to 0; with a time budget it follows training "
        "time, not steps, so a slow step - a busy machine, a long batch - shows as a jump, and the planned "
        "number of steps is re-estimated as the run goes), the gradient norm before clipping, "
        "the throughput in samples per second, and the dev metric at each evaluation (EM and F1 for SQuAD, "
        "accuracy or F1 for classification, all in percent). A dashed line on a dev plot is the trivial "
        "baseline on the same dev data (SQuAD 2.0: answering \"no answer\" everywhere; classification: always "
        "the majority class): a run on that line has learnt nothing else. A loss that stops falling while the "
        "dev metric still rises is normal early on; a dev metric that falls while the loss keeps falling is "
        "overfitting. Mouse: the wheel scrolls the page, Ctrl+wheel zooms a plot, dragging pans it, and "
        "\"Reset view\" above each plot returns to the automatic range."),
}


def _canonical(term: str) -> str | None:
    """The GLOSSARY key for `term` (exact name, alias, or the same ignoring case, spaces and hyphens)."""
    if term in GLOSSARY:
        return term
    key = term.strip()
    if key in ALIASES:
        return ALIASES[key]
    folded = key.lower().replace("-", "_").replace(" ", "_")
    for name in GLOSSARY:
        if name.lower() == folded:
            return name
    for alias, name in ALIASES.items():
        if alias.lower().replace("-", "_").replace(" ", "_") == folded:
            return name
    return None


def tooltip(term: str) -> str:
    """The tooltip text for `term`: a standard name (``"score_diff"``), an alias (``"s_null"``, ``"τ"``,
    ``"answer rate"``, ``"warmup_ratio"``), case, spaces and hyphens not mattering.

    Raises:
        KeyError: the term is unknown; the message lists every known term.
    """
    name = _canonical(term) if isinstance(term, str) else None
    if name is None:
        known = ", ".join(sorted(GLOSSARY, key=str.lower))
        raise KeyError(f"no tooltip for {term!r}; known terms: {known} (aliases: {', '.join(sorted(ALIASES))})")
    return GLOSSARY[name]


def launcher_help() -> str:
    """The Launcher's help, its facts read from their one place: the tasks from the task table (in its order,
    plugins included), the recipe the form starts with from the offline preset, the paper recipe from the
    TrainConfig defaults and its grid from the paper preset (a copy of them went stale: "3 epochs" beside a form
    of 4, a task list without the later tasks)."""
    from explorer.core.specs.run_presets import load_preset
    from explorer.core.specs.tasks import task_labels
    from explorer.core.specs.train_config import TrainConfig

    form, paper = load_preset("offline").apply(TrainConfig()), TrainConfig()
    grid = load_preset("paper").grid or {}
    rates = ", ".join(f"{lr:g}" for lr in grid.get("learning_rate", [])) or f"{paper.resolved_learning_rate():g}"
    tasks = "; ".join(task_labels().values())
    return (
        "Set up a fine-tune. Pick a base model (a Hugging Face hub id, a local folder, or bundled:minilm, which "
        f"works offline), a task ({tasks}), training and dev data (a local file or a hub dataset id), and the "
        f"settings. The form starts as the offline default: {form.model}, learning rate "
        f"{form.resolved_learning_rate():g}, batch {form.batch_size}, {form.epochs:g} epochs, max_seq_length "
        f"{form.resolved_max_seq_length()}; a task switch sets that task's learning rate, max_seq_length and "
        "evaluation interval in the fields you have not edited. The offline SQuAD 2.0 preset is the same run on the "
        "bundled SQuAD 2.0 sample, a third of its questions unanswerable: the model learns when to abstain, the "
        "run to study τ on (τ on dev set). The paper recipe preset is the BERT paper's: "
        f"AdamW, learning rate from {{{rates}}}, batch {paper.batch_size}, {paper.epochs:g} epochs, "
        f"{paper.warmup_ratio:.0%} warmup, weight decay {paper.weight_decay:g}, clipping at "
        f"{paper.max_grad_norm:g}. The fast CPU preset trades some of that for speed on a laptop. Several "
        "settings can be queued as a grid; each run trains in its own process, so the window stays responsive "
        "and cancel really stops it.")


def panel_help(panel: str) -> str:
    """The help paragraph of a panel title in PANEL_HELP; KeyError listing the panels if unknown."""
    if panel not in PANEL_HELP:
        raise KeyError(f"no help for panel {panel!r}; panels: {', '.join(PANEL_HELP)}")
    return launcher_help() if panel == "Launcher" else PANEL_HELP[panel]
