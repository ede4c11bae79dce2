"""The human-readable report of a probe (explorer.core.qa.probe.ProbeResult): the answer, the n-best spans with
S·T_i + E·T_j, null_score = S·C + E·C, score_diff and the τ inequality (Devlin et al. 2019, §4.3), the block flow
per layer, the by-hand check. What ``bert-explorer probe`` prints and what its ``--html`` page and the Attention
page's export show above the views."""

from __future__ import annotations


import math


def _adds_up(a: float, b: float, d: int) -> bool:
    """Whether ``a`` and ``b`` shown with ``d`` decimals add up to ``a + b`` shown with ``d`` decimals."""
    return f"{float(f'{a:.{d}f}') + float(f'{b:.{d}f}'):.{d}f}" == f"{a + b:.{d}f}"


def sum_digits(a: float, b: float, digits: int = 2, most: int = 4) -> int:
    """The fewest decimals, from ``digits`` up to ``most``, at which ``a`` and ``b`` as shown add up to ``a + b`` as
    shown: 2 for 3.66 + 3.53 = 7.19, 3 where the parts round up together (3.655 + 3.534 = 7.189, not
    3.66 + 3.53 = 7.20), so a reader checking the arithmetic by hand gets the figure on screen."""
    return table_digits([(a, b)], digits, most)


def table_digits(rows, digits: int = 2, most: int = 4) -> int:
    """One decimal count for a whole column of sums: the fewest, from ``digits`` up to ``most``, at which every
    row's two parts as shown add up to its sum as shown (a table whose rows carried 2 and 3 decimals in one
    column would read as a misprint). ``rows``: (a, b) pairs; a difference a − b is the pair (a, −b). Rows with
    an infinite part are left out (they are shown as ±inf)."""
    pairs = [(a, b) for a, b in rows if math.isfinite(a) and math.isfinite(b)]
    for d in range(digits, most + 1):
        if all(_adds_up(a, b, d) for a, b in pairs):
            return d
    return most


def score_digits(nbest, null_start: float, null_end: float) -> int:
    """The one decimal count of a probe's scores: the n-best spans' S.T_i + E.T_j and null_score's S.C + E.C are
    printed with the same decimals (:func:`table_digits` over the spans shown and the null score together), so
    null_score never reads "0.11 + 0.10" beside span scores of four decimals and every shown sum adds its
    shown parts. ``nbest``: the candidates shown (start_logit, end_logit)."""
    return table_digits(score_pairs(nbest, null_start, null_end))


def score_pairs(nbest, null_start: float, null_end: float) -> list[tuple[float, float]]:
    """The (start, end) parts of the shown span scores and of null_score, the rows :func:`score_digits` and
    :func:`rounding_note` read."""
    return [(c.start_logit, c.end_logit) for c in nbest] + [(null_start, null_end)]


def shown_sum(a: float, b: float, d: int = 2) -> str:
    """``a + b`` as printed beside its parts: the sum of the parts as shown with ``d`` decimals (1.4038 + 3.3755 =
    4.7793, where the exact sum rounds to 4.7792), so a shown sum always adds up as printed. Below ``most``
    decimals :func:`table_digits` picks a count at which this is also the exact sum rounded; at ``most`` it may be
    off the exact sum by one in the last digit, which :func:`rounding_note` says. An infinite part gives the exact
    sum (±inf)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return shown(a + b, d)
    return shown(float(shown(a, d)) + float(shown(b, d)), d)


def rounding_note(rows, d: int) -> str:
    """Beside a table (or a line) of sums of ``rows`` ((a, b) pairs) shown with ``d`` decimals: where a shown sum
    (:func:`shown_sum`) is not the exact sum rounded, "parts rounded to 4 decimals; a sum adds the parts as
    printed"; "" where every shown sum is also the exact one rounded."""
    pairs = [(a, b) for a, b in rows if math.isfinite(a) and math.isfinite(b)]
    if all(_adds_up(a, b, d) for a, b in pairs):
        return ""
    return f"parts rounded to {d} decimals; a sum adds the parts as printed"


def shown(x: float, d: int = 2) -> str:
    """``x`` with ``d`` decimals; a value that rounds to zero reads "0.00", never "-0.00"."""
    text = f"{x:.{d}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def operand(x: float, d: int = 2) -> str:
    """``x`` as the second operand of a shown sum or difference: a negative one in parentheses, so
    "6.61 − (-1.20)" and "3.00 + (-1.50)" never read as "− -" or "+ -"."""
    text = shown(x, d)
    return f"({text})" if text.startswith("-") else text


def addition(a: float, b: float, d: int | None = None) -> str:
    """"a + b = sum" with the decimals of :func:`sum_digits` (S.T_i + E.T_j, S.C + E.C), or ``d`` where a table
    decides them for all its rows (:func:`table_digits`)."""
    d = sum_digits(a, b) if d is None else d
    return f"{shown(a, d)} + {operand(b, d)} = {score_text(a, b, d)}"


def score_text(start: float, end: float, d: int) -> str:
    """A score S + E (a span's S.T_i + E.T_j, null_score's S.C + E.C) as every row of a probe prints it: its parts
    with the probe's ``d`` decimals (:func:`score_digits`), added as printed (:func:`shown_sum`). The one
    rounding of a score: a row that names a score again (score_diff's parts) prints this very text."""
    return shown_sum(start, end, d)


def score_difference(best: tuple[float, float] | None, null: tuple[float, float], d: int) -> str:
    """"best − null = score_diff" from the printed scores: ``best`` and ``null`` ((start, end) parts; ``best``
    None without a valid span) as :func:`score_text` prints them beside it, with the same ``d`` decimals, and
    the difference of those printed figures, so the line repeats the rows above it and adds up as printed
    ("7.4644 − (-0.3042) = 7.7686"); "-inf − 0.30 = -inf" without a valid span."""
    null_text = score_text(*null, d)
    null_shown = f"({null_text})" if null_text.startswith("-") else null_text
    if best is None or not all(math.isfinite(x) for x in (*best, *null)):
        return f"-inf − {null_shown} = -inf"
    best_text = score_text(*best, d)
    return f"{best_text} − {null_shown} = {shown(float(best_text) - float(null_text), d)}"


def subtraction(a: float, b: float, d: int | None = None) -> str:
    """"a − b = difference" (best span score − null score = score_diff) with the fewest decimals at which the
    shown parts give the shown difference; a negative b in parentheses."""
    d = sum_digits(a, -b) if d is None else d
    return f"{shown(a, d)} − {operand(b, d)} = {shown_sum(a, -b, d)}"


def render_text(result, *, top: int = 5, per_head: bool = False, special_label: str = "[CLS]/[SEP]") -> str:
    """The human-readable report of a ProbeResult (what `bert-explorer probe` prints). Windows, layers and
    heads are numbered from 1, as in the app."""
    from explorer.core.attention.flow import BLOCKS, flow_table_lines

    lines = [f"Q: {result.question}"]
    d = result.decision()
    if d.answer:
        best = result.nbest[0]
        lines.append(f'answer: "{best.text}"  (window {best.window_index + 1} of {len(result.windows)}, tokens {best.start_token}..'
                     f'{best.end_token}, chars {best.start_char}..{best.end_char})')
    else:
        lines.append("answer: (no answer)" + (f'  best span "{result.nbest[0].text}" loses to the null score'
                                               if result.nbest else "  (no valid span)"))
    pairs = score_pairs(result.nbest[:max(top, 1)], result.null_start_logit, result.null_end_logit)
    d_nbest = table_digits(pairs)   # the span scores' and null_score's one decimal count (score_digits)
    note = rounding_note(pairs, d_nbest)
    lines.append(f"n-best (top {min(top, len(result.nbest))} of {len(result.nbest)}" + (f"; {note}" if note else "")
                 + "):")
    for rank, c in enumerate(result.nbest[:top], 1):
        lines.append(f'  {rank}. "{c.text}"  S.T_i + E.T_j = {addition(c.start_logit, c.end_logit, d_nbest)}'
                     f"  (window {c.window_index + 1}, tokens {c.start_token}..{c.end_token})")
    lines.append(f"null_score = S.C + E.C = {addition(result.null_start_logit, result.null_end_logit, d_nbest)}  "
                 f"(window {result.decoding.null_window + 1}; minimum over "
                 f"{len(result.windows)} window{'s' if len(result.windows) != 1 else ''})")
    if result.nbest:
        b = result.nbest[0]
        lines.append(f"best span score = S.T_i + E.T_j = {addition(b.start_logit, b.end_logit, d_nbest)}")
    else:
        lines.append("best span score = -inf (no valid span in the passage)")
    best_pair = (result.nbest[0].start_logit, result.nbest[0].end_logit) if result.nbest else None
    lines.append("score_diff = best_non_null_score - null_score = "
                 + score_difference(best_pair, (result.null_start_logit, result.null_end_logit), d_nbest))
    lines.append(f"tau = {d.tau:+.2f}: {d.inequality}")
    other = result.other_rule_answer()
    if other is not None:
        rule, text, diff = other
        lines.append(f"decode rule {result.decode_rule}; under {rule} the answer differs: "
                     f"{repr(text) if text else 'no answer'} (score_diff {diff:+.2f})")
    if result.attention:
        w = result.best_window.index
        att = result.attention[w]
        lines.append(f"attention block flow, mean over {att.num_heads} heads (window {w + 1}; share of each "
                     "from-token's attention, averaged over the block's tokens):")
        lines.extend(flow_table_lines(att.flow_mean, special_label=special_label))
        if per_head:
            lines.append("per head: question -> passage / passage -> question / question -> special")
            for layer in range(att.num_layers):
                cells = "  ".join(f"h{h + 1}: {att.flow[layer, h, 0, 1]:.2f}/{att.flow[layer, h, 1, 0]:.2f}/"
                                  f"{att.flow[layer, h, 0, 2]:.2f}" for h in range(att.num_heads))
                lines.append(f"layer {layer + 1:2d}: {cells}")
            lines.append(f"per question token, share of attention to {' / '.join(BLOCKS)} "
                         "(mean over layers and heads):")
            win = result.windows[w]
            for i, (t, blk) in enumerate(zip(win.tokens, win.blocks)):
                if blk == "question":
                    s = att.token_share[i]
                    lines.append(f"  {t:>12s}  {s[0]:.3f} / {s[1]:.3f} / {s[2]:.3f}")
    elif getattr(result, "attention_note", ""):
        lines.append(f"attention: not available ({result.attention_note})")
    if result.byhand_max_abs_diff is not None:
        lines.append(f"by-hand check: |T_i.W[k] + b[k] - model logit| max = {result.byhand_max_abs_diff:.1e} "
                     "(S = qa_outputs row 0 vs start_logits, E = row 1 vs end_logits, all windows)")
    else:
        lines.append(f"by-hand check: not available ({result.byhand_note})")
    lines.append(f"windows: {len(result.windows)}; tokens: {', '.join(str(len(w)) for w in result.windows)}; "
                 f"{result.seconds * 1000:.0f} ms")
    return "\n".join(lines)
