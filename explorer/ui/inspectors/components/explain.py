"""What the Explain page asks and says, without Qt: what the head of a task explains, what its texts are called,
which fields it takes and which targets it offers, the ``explain`` request the fields make, the coloured text and
the bar list of an Attribution (explorer.core.explain.attribution). explorer.ui.inspectors.explain_view shows it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from explorer.core.specs.heads import Explained
from explorer.core.specs.tasks import find_task_facts, get_task_facts

from .saliency import colour

METHOD_LABELS = {"ig": "integrated gradients", "gxi": "gradient × input"}
BARS_SHOWN = 30       # the bar list's rows (largest |attribution| first)
NUM_ENDINGS = 4       # SWAG's endings (explorer.core.data.swag.NUM_CHOICES; not imported: it pulls datasets)


def explained_of_task(task: str) -> Explained:
    """What the head of a task of explorer.core.specs.tasks explains (its spec's ``explained``)."""
    return get_task_facts(task).head.explained


def segment_labels(task: str) -> tuple[str, str]:
    """What text A and text B are called for ``task``: ("Question", "Passage"), ("Context", "Ending"), ..."""
    facts = find_task_facts(task)
    if facts is None:
        return "Text A", "Text B"
    if facts.is_qa:
        return "Question", "Passage"
    if facts.is_multiple_choice:
        return "Context", "Ending"
    if facts.takes_pairs:
        return "Sentence A", "Sentence B"
    return "Text", "Text B"


def target_choices(task: str, names: list[str]) -> list[tuple[str, str]]:
    """(label shown, target value of explorer.core.explain.attribution.resolve_target) for the target picker."""
    explained = explained_of_task(task)
    if explained is Explained.SCORE:
        return [("the score", "score")]
    if explained is Explained.SPAN:
        rows = [("span score (start + end logit)", "span"), ("start logit", "start"), ("end logit", "end")]
        if get_task_facts(task).has_no_answer:   # the answer-or-abstain decision (explorer.core.explain.decision)
            rows.append(("answer or abstain: score_diff (integrated gradients)", "score_diff"))
        return rows
    what = {Explained.ENDING: "ending", Explained.TAG: "tag"}.get(explained, "class")
    rows = [(f"predicted {what}", ""), (f"margin: predicted {what} vs runner-up", "margin")]
    if explained is Explained.ENDING:
        names = [f"ending {k}" for k in range(NUM_ENDINGS)]
        rows += [(f"{n} against the others", str(k)) for k, n in enumerate(names)]
    else:
        rows += [(f"logit of {n}", str(k)) for k, n in enumerate(names)]
        rows += [(f"margin: {n} vs the best other", f"margin:{k}") for k, n in enumerate(names)]
    return rows


def _shown(token: str) -> tuple[str, str]:
    """(separator, text) of a token in running text: word pieces join their word."""
    return ("", token[2:]) if token.startswith("##") else (" ", token)


def explain_html(attr, task: str) -> str:
    """The input's texts with each token (or word) coloured by its attribution; special tokens listed apart.

    One paragraph per text (pairs: A and B; QA: question and passage; SWAG: each ending's context and
    ending, the context once per ending since its attributions differ)."""
    a = np.asarray(attr.attributions, dtype=np.float64)
    scale = float(np.abs(a).max()) if len(a) else 0.0
    name_a, name_b = segment_labels(task)
    rows: dict[tuple[int, str], list[str]] = {}
    specials = []
    for i, (tok, seg, choice) in enumerate(zip(attr.tokens, attr.segments, attr.choices)):
        if seg == "special":
            specials.append(f"{html.escape(tok)}{'' if max(attr.choices) == 0 else f' ({choice})'} {a[i]:+.3f}")
            continue
        sep, text = _shown(tok) if not attr.merged else (" ", tok)
        rows.setdefault((choice, seg), []).append(
            f'{sep}<span title="{html.escape(tok)}: {a[i]:+.4f}" style="{colour(a[i], scale)}">{html.escape(text)}</span>')
    parts = []
    multi = max(attr.choices, default=0) > 0
    for (choice, seg), spans in rows.items():
        label = name_a if seg == "a" else name_b
        if multi:
            label = f"{label} (ending {choice})" if seg == "a" else f"{label} {choice}"
        parts.append(f"<p><b>{html.escape(label)}:</b>{''.join(spans)}</p>")
    if specials and all(a[i] == 0 for i, seg in enumerate(attr.segments) if seg == "special"):
        specials = ["0 (the baseline keeps them)"]
    special = f"<p style='color:#555'>special tokens ([CLS], [SEP]): {', '.join(specials)}</p>" if specials else ""
    return (f"<p><b>{html.escape(attr.target.description)}</b> = {attr.target_value:+.5g} "
            f"({METHOD_LABELS.get(attr.method, attr.method)}"
            f"{f', {attr.steps} steps' if attr.method == 'ig' else ''})</p>" + "".join(parts) + special +
            "<p style='color:#666; font-size:small'>red raises the target, blue lowers it; the strongest token is "
            "full colour; hover a token for its number.</p>")


def bar_rows(attr, task: str = "", n: int = BARS_SHOWN) -> list[tuple[str, float]]:
    """(label, attribution) of the n largest |attribution|, largest first. With two texts the label says which
    one the token is in ("born (B)"; QA: Q / P; SWAG: "ctx 2" / "end 2", the input row), so that equal tokens of
    two texts stay apart."""
    facts = find_task_facts(task)
    two = len(set(attr.segments) - {"special"}) > 1
    short = {"a": "A", "b": "B"}
    if facts is not None and facts.is_qa:
        short = {"a": "Q", "b": "P"}
    elif facts is not None and facts.is_multiple_choice:
        short = {"a": "ctx ", "b": "end "}
    multi = max(attr.choices, default=0) > 0
    out = []
    for i, tok, value in attr.ranked(n):
        seg = attr.segments[i]
        where = "" if seg == "special" or not two else f" ({short[seg]}{attr.choices[i] if multi else ''})"
        out.append((f"{tok}{where}", value))
    return out


@dataclass(frozen=True)
class ExplainFields:
    """The input fields a task takes: the texts' names, whether text B and the endings are shown (and B's
    placeholder), and whether a token (tagging; QA: the start) and an end (QA) are asked for."""

    name_a: str
    name_b: str
    pair: bool
    placeholder_b: str
    endings: bool
    token: bool
    token_name: str
    end: bool


def explain_fields(task: str) -> ExplainFields:
    """The fields of ``task`` (explorer.core.specs.tasks)."""
    facts = get_task_facts(task)
    explained = explained_of_task(task)
    name_a, name_b = segment_labels(task)
    tagging, qa = explained is Explained.TAG, explained is Explained.SPAN
    return ExplainFields(name_a=name_a, name_b="Start of the endings" if facts.is_multiple_choice else name_b,
                         pair=facts.takes_pairs or facts.is_qa or facts.is_multiple_choice,
                         placeholder_b=("optional (SWAG's sent2)" if facts.is_multiple_choice else
                                        ("optional: a second text" if not facts.is_qa else "")),
                         endings=facts.is_multiple_choice, token=tagging or qa, token_name="start" if qa else "token",
                         end=qa)


def explain_request(task: str, *, text: str, text_pair: str, endings: list[str], target: str, method: str,
                    steps: int, merge_words: bool, token: int, end: int) -> dict:
    """The ``explain`` op's arguments (without the slot) for the fields of ``task``: text B, the endings, the token
    and the end only where the task takes them; max_seq_length the task's default."""
    facts = get_task_facts(task)
    explained = explained_of_task(task)
    data = {"text": text, "text_pair": "", "target": target, "method": method, "steps": int(steps),
            "merge_words": merge_words, "max_seq_length": facts.default_max_seq_length}
    if facts.takes_pairs or facts.is_qa or facts.is_multiple_choice:
        data["text_pair"] = text_pair
    if facts.is_multiple_choice:
        data["endings"] = list(endings)
    if explained is Explained.TAG:
        data["token"] = int(token)
    if explained is Explained.SPAN:
        data["token"], data["end"] = int(token), int(end)
    return data
