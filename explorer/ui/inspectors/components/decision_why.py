"""What the decision's "why?" says, without Qt: the words that pushed the answer-or-abstain decision toward
answering and toward "no answer" (integrated gradients of score_diff, explorer.core.explain.decision), as one
summary line beside the τ inequality and as the question and passage coloured word by word.
explorer.ui.inspectors.decision_why_view shows them.
"""

from __future__ import annotations

import html

from explorer.core.qa.decode_rules import DEFAULT_RULE
from explorer.core.qa.probe_text import operand

from .saliency import colour

SUMMARY_WORDS = 3    # words per side in the summary line


def _clean(token: str) -> str:
    return token[2:] if token.startswith("##") else token.lstrip("Ġ▁")


def why_summary(attr) -> str:
    """"toward answering: London +2.10, born +0.80; toward no answer: die −1.40 (sum −0.10 = score_diff change
    ...)": the strongest words each way and the completeness check."""
    d = attr.details
    up = ", ".join(f"{_clean(t)} {v:+.2f}" for t, v in d.get("toward_answer", [])[:SUMMARY_WORDS]) or "none"
    down = ", ".join(f"{_clean(t)} {v:+.2f}" for t, v in d.get("toward_no_answer", [])[:SUMMARY_WORDS]) or "none"
    change = attr.target_value - attr.baseline_value
    # a negative baseline in parentheses: "+1.20 − (-0.50)", never "+1.20 − -0.50"
    check = (f"sum {attr.total:+.2f} = score_diff {attr.target_value:+.2f} − {operand(attr.baseline_value)} at the [PAD] "
             f"baseline = {change:+.2f} (gap {100 * attr.relative_gap:.2f} %, {attr.steps} points)")
    line = f"toward answering: {up}; toward no answer: {down}. {check}"
    return f"{line}. {attr.warning}" if attr.warning else line


def why_status(result, window: int, attr) -> str:
    """The line over the coloured text: which window was explained and, where the decision's score_diff is
    another number, why (several windows: the decision takes the best span of all and the lowest s_null; the
    run_qa decode rule: its search can miss the best valid span the attributions explain)."""
    line = f"window {window + 1}: score_diff {attr.target_value:+.2f}"
    if result is None or abs(attr.target_value - result.score_diff) <= 1e-3 * max(1.0, abs(result.score_diff)):
        return line + " (the decision's)"
    why = []
    if len(result.windows) > 1:
        why.append(f"the decision takes the best span over {len(result.windows)} windows and the lowest s_null")
    if result.decode_rule != DEFAULT_RULE:
        why.append(f"the {result.decode_rule} decode rule searched fewer spans")
    reason = "; ".join(why) or "the decoder tried only the top n_best_size starts and ends"
    return (f"{line}: the best valid span of this window against its s_null; the decision above uses "
            f"{result.score_diff:+.2f} ({reason})")


def why_html(attr) -> str:
    """The window's question and passage, each word coloured: red pushed toward answering, blue toward no answer
    (the strongest |attribution| full colour); the numbers on hover."""
    scale = float(abs(attr.attributions).max()) if len(attr.attributions) else 0.0
    parts = {"a": [], "b": []}
    for tok, seg, value in zip(attr.tokens, attr.segments, attr.attributions):
        if seg not in parts:
            continue
        glue = tok.startswith("##")
        parts[seg].append(f'{"" if glue else " "}<span title="{value:+.4f}" style="{colour(value, scale)}">'
                          f"{html.escape(_clean(tok))}</span>")
    inp, base = attr.details.get("input", {}), attr.details.get("baseline", {})
    return (f"<p><b>score_diff</b> = best span score {inp.get('best_non_null_score', float('nan')):.2f} − s_null "
            f"{inp.get('null_score', float('nan')):.2f} = {attr.target_value:+.2f}; at the [PAD] baseline "
            f"{attr.baseline_value:+.2f} (its best span: tokens {base.get('start')}..{base.get('end')}).</p>"
            f"<p>{html.escape(why_summary(attr))}</p>"
            f"<p><b>question:</b>{''.join(parts['a'])}</p><p><b>passage:</b>{''.join(parts['b'])}</p>"
            "<p style='color:#666; font-size:small'>integrated gradients of score_diff on the word embeddings: red "
            "pushed toward answering, blue toward no answer; the attributions add up to the change of score_diff "
            "from the baseline to this input. Hover a word for its number.</p>")
