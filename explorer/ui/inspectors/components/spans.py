"""What the Spans & τ view shows and says, without Qt: the decision panel's lines at a τ, the windows' names, a
span's text and score line, the passage with the best and the clicked span marked, the span table's best cell
and first zoom, and the hover texts. explorer.ui.inspectors.spans_view draws it.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

from explorer.core.qa.probe_text import (addition, rounding_note, score_difference, score_digits, score_pairs,
                                         score_text, shown)
from explorer.core.qa.scores import TAU_GRID_LIMIT
from explorer.glossary import tooltip

ZOOM_TOKENS = 60    # span table: initial view around the best cell for long windows
ANSWER_STYLE = "background:#b6e3b6;"
WITHHELD_STYLE = "background:#ffe08a; text-decoration: line-through;"
CLICKED_STYLE = "border-bottom:3px solid #1f55c0; color:#1f55c0;"
OUTSIDE_STYLE = "color:#999;"
PASSAGE_LEGEND = ("<p style='color:#666; font-size:small'>green: predicted answer; yellow struck out: best span, "
                  "withheld at this τ; blue underline: the span you clicked; grey: outside the selected window.</p>")


def fmt(x: float | None, digits: int = 2) -> str:
    """A score as shown: ``digits`` decimals, "-inf" / "+inf", "n/a" for None."""
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isinf(x):
        return "-inf" if x < 0 else "+inf"
    return f"{x:.{digits}f}"


@dataclass(frozen=True)
class DecisionLines:
    """The decision panel's lines for one result at one τ (the tooltips that change with them too)."""

    null: str
    null_tip: str
    best: str
    best_tip: str | None   # None: the label keeps its glossary tooltip
    diff: str
    decision: str
    answer: bool           # the rule answers (green) or abstains (red)
    by_hand: str
    other_rule: str = ""   # the other decode rule's answer where it differs; "" when both agree


def decision_lines(r, tau: float) -> DecisionLines:
    """The lines of ProbeResult ``r`` at ``tau`` (the tooltips end with the glossary's entries). null_score and
    the best span's score carry the n-best table's decimals (core.qa.probe_text.score_digits)."""
    digits = score_digits(r.nbest, r.null_start_logit, r.null_end_logit)
    null = (f"S.C + E.C = {addition(r.null_start_logit, r.null_end_logit, digits)}"
            + (f"  [window {r.decoding.null_window + 1}]" if len(r.windows) > 1 else ""))
    null_tip = ("start_logits[CLS] + end_logits[CLS] (S.C + E.C; C = the final vector of [CLS])\n"
                + tooltip("s_null"))
    best_tip = None
    if r.nbest:
        b = r.nbest[0]
        short = b.text if len(b.text) <= 28 else b.text[:27] + "…"
        best = f"S.T_i + E.T_j = {addition(b.start_logit, b.end_logit, digits)}  \"{short}\""
        best_tip = (f"\"{b.text}\" (tokens {b.start_token}..{b.end_token} of window {b.window_index + 1})\n"
                    + tooltip("best_non_null_score"))
    else:
        best = "-inf (no valid span in the passage)"
    d = r.decision(tau)
    if r.byhand_max_abs_diff is not None:
        by_hand = f"max |T_i·W + b − logits| = {r.byhand_max_abs_diff:.2e}"
    else:
        by_hand = r.byhand_note or "not available for this model"
    return DecisionLines(null=null, null_tip=null_tip, best=best, best_tip=best_tip,
                         diff=difference_line(r, digits),
                         decision=f"τ = {tau:+.2f}:  {d.inequality}", answer=bool(d.answer), by_hand=by_hand,
                         other_rule=other_rule_line(r, tau))


def difference_line(r, digits: int) -> str:
    """"best − null = score_diff" as the decision panel shows it: the best span's score and null_score exactly as
    their rows above print them (``digits``: the probe's one decimal count), their printed difference, a negative
    null score in parentheses ("6.61 − (-1.20) = 7.81"); "-inf − 1.20 = -inf" without a valid span."""
    best = (r.nbest[0].start_logit, r.nbest[0].end_logit) if r.nbest else None
    return score_difference(best, (r.null_start_logit, r.null_end_logit), digits)


def nbest_rows(cands, null: tuple[float, float]) -> list[list[str]]:
    """The n-best table's cells (rank, text, start, end, score, window) with one decimal count for the whole table
    and the decision panel's null_score (``null``: its S.C and E.C): the fewest at which every row's shown start
    and end, and null_score's shown parts, add up to their shown sums."""
    d = score_digits(cands, *null)
    return [[str(r + 1), c.text, shown(c.start_logit, d), shown(c.end_logit, d),
             score_text(c.start_logit, c.end_logit, d), str(c.window_index + 1)] for r, c in enumerate(cands)]


def nbest_note(cands, null: tuple[float, float]) -> str:
    """The n-best table's score tooltip where a shown score adds the shown parts rather than rounding the exact
    sum ("parts rounded to 4 decimals; a sum adds the parts as printed", core.qa.probe_text.rounding_note); ""
    where every shown score is the exact one rounded. ``null``: null_score's parts, which share the decimals."""
    return rounding_note(score_pairs(cands, *null), score_digits(cands, *null))


def other_rule_line(r, tau: float) -> str:
    """"decode rule passage answers "X"; run_qa would answer "Y" (score_diff +1.20)" where the two decode rules
    (explorer.core.qa.decode_rules) give different answers at ``tau``; "" where they agree."""
    other = r.other_rule_answer(tau)
    if other is None:
        return ""
    rule, text, diff = other
    ours = r.decision(tau).answer_text
    said = lambda t: f"\"{t}\"" if t else "no answer"   # noqa: E731
    return (f"decode rule {r.decode_rule} gives {said(ours)}; {rule} would give {said(text)} "
            f"(its score_diff {fmt(diff)})")


def probe_status(result, tau: float) -> str:
    """The line under Probe: how long the probe took, its windows, and the answer at the τ on screen ("no
    answer" when score_diff <= τ); restated whenever τ moves."""
    n = len(result.windows)
    answer = result.decision(tau).answer_text or "no answer"
    return (f"probe: {result.seconds * 1000:.0f} ms, {n} window{'s' if n != 1 else ''}; answer at τ={tau:+.2f}: "
            f"\"{answer}\"")


def slider_tip(limit: float) -> str:
    """The τ slider's tooltip for a slider of ±``limit``: the glossary's τ, then the slider's range."""
    return (tooltip("tau") + f"\n\nSlider: τ from {-limit:+.0f} to {limit:+.0f}"
            + (" (the τ study's grid)" if limit == TAU_GRID_LIMIT else
               f" (the τ study's grid is ±{TAU_GRID_LIMIT:g}; widened to reach this question's score_diff)")
            + "; type any τ in the box.")


def window_text(result, w) -> str:
    """A line of the windows list: its tokens and characters, s_null, its best span in the n-best list."""
    offs = [o for o in w.offsets if o is not None]
    chars = f"chars {offs[0][0]}–{offs[-1][1]}" if offs else "no passage tokens"
    c = w.cls_index
    s_null = float(w.start_logits[c] + w.end_logits[c])
    best = [x for x in result.nbest if x.window_index == w.index]
    best_txt = f"best span here {best[0].score:.2f} \"{best[0].text[:30]}\"" if best else "no span in n-best"
    return f"window {w.index + 1}: {len(w.tokens)} tokens, {chars}; s_null {s_null:.2f}; {best_txt}"


def passage_range(w) -> tuple[int, int]:
    """The window's passage tokens [first, last + 1): the span table's rows and columns."""
    idx = [i for i, o in enumerate(w.offsets) if o is not None]
    return (idx[0], idx[-1] + 1) if idx else (0, 0)


def span_text(result, w, i: int, j: int) -> str:
    """The passage text of tokens i..j of window ``w``."""
    oi, oj = w.offsets[i], w.offsets[j]
    if oi is None or oj is None:
        return "(not passage text)"
    from explorer.core.qa.decoding import passage_span

    return passage_span(result.passage, oi[0], oj[1])[2] or "(white space only)"


def span_line(result, window: int, start: int, end: int, valid: bool) -> str:
    """The line under the passage for a clicked span: its tokens, text and S.T_i + E.T_j."""
    w = result.windows[window]
    s, e = float(w.start_logits[start]), float(w.end_logits[end])
    why = "" if valid else "  (invalid span: the search never considers it)"
    return (f"span tokens {start}..{end} of window {window + 1}: \"{span_text(result, w, start, end)}\"  "
            f"S.T_i + E.T_j = {addition(s, e)}{why}")


def passage_html(result, window: int, tau: float, selected: tuple | None) -> tuple[str, bool]:
    """The passage as HTML: the best span green (answered at ``tau``) or yellow struck out (withheld), the clicked
    span (``selected``: (window, start, end)) underlined blue, text outside window ``window`` grey. Returns (html,
    whether it has the ``shown`` anchor at the span to scroll to)."""
    text = result.passage
    w = result.windows[window]
    offs = [o for o in w.offsets if o is not None]
    win = (offs[0][0], offs[-1][1]) if offs else (0, 0)
    d = result.decision(tau)
    marks = []  # (start, end, style)
    anchor = None
    if result.nbest:
        best = result.nbest[0]
        anchor = best.start_char
        marks.append((best.start_char, best.end_char, ANSWER_STYLE if d.answer else WITHHELD_STYLE))
    if selected is not None:
        sw, si, sj = selected
        ww = result.windows[sw]
        if ww.offsets[si] is not None and ww.offsets[sj] is not None:
            marks.append((ww.offsets[si][0], ww.offsets[sj][1], CLICKED_STYLE))
            anchor = ww.offsets[si][0]
    cuts = sorted({0, len(text), *win, *[m[0] for m in marks], *[m[1] for m in marks]})
    parts = []
    for a, b in zip(cuts, cuts[1:]):
        if b <= a:
            continue
        style = "" if win[0] <= a < win[1] else OUTSIDE_STYLE
        for s, e, st in marks:
            if s <= a < e:
                style += st
        chunk = html.escape(text[a:b])
        if a == anchor:
            parts.append('<a name="shown"></a>')
        parts.append(f'<span style="{style}">{chunk}</span>' if style else chunk)
    return (f"<div style='font-size:11pt; line-height:140%'>{''.join(parts)}</div>{PASSAGE_LEGEND}",
            anchor is not None)


def best_cell(table: np.ndarray) -> tuple[int, int] | None:
    """The highest valid cell (start row, end column) of a span score table; None when every cell is invalid."""
    if not table.size or not np.isfinite(table).any():
        return None
    bi, bj = np.unravel_index(np.nanargmax(table), table.shape)
    return int(bi), int(bj)


def first_zoom(cell: tuple[int, int], n: int) -> tuple[int, int] | None:
    """The span table's first view [lo, hi) around ``cell`` when its ``n`` tokens are more than ZOOM_TOKENS."""
    if n <= ZOOM_TOKENS:
        return None
    lo = max(0, min(cell) - ZOOM_TOKENS // 2)
    return lo, min(n, lo + ZOOM_TOKENS)


def cell_tip(w, i: int, j: int, value: float) -> str:
    """The span table's tooltip over start token i, end token j of window ``w``."""
    what = f"{value:.2f}" if np.isfinite(value) else "invalid"
    return f"start '{w.tokens[i]}' ({i}), end '{w.tokens[j]}' ({j}): {what}"


def token_probs_tip(w, i: int) -> str:
    """The P(start/end) plot's tooltip over token i of window ``w``."""
    return (f"'{w.tokens[i]}' ({i}): P(start) {w.start_probs[i]:.3f}, P(end) {w.end_probs[i]:.3f}; "
            f"start_logit {w.start_logits[i]:.2f}, end_logit {w.end_logits[i]:.2f}")
