"""What the saliency page says, without Qt: an attribution's colour (red raises the logit, blue lowers it) and the
window's question and passage coloured by a span's start or end attributions (explorer.core.qa.saliency).
explorer.ui.inspectors.saliency_view shows it; the Explain page colours its tokens the same way.
"""

from __future__ import annotations

import html


def colour(value: float, scale: float) -> str:
    """CSS background for an attribution: red for positive, blue for negative, alpha by |value| / scale."""
    alpha = min(abs(value) / scale, 1.0) if scale > 0 else 0.0
    rgb = "214,39,40" if value >= 0 else "31,119,180"
    return f"background: rgba({rgb},{alpha:.2f});"


def saliency_html(sal, which: str = "start") -> str:
    """The window's tokens (question, then passage) coloured by the start or end attributions."""
    a = sal.start_attribution if which == "start" else sal.end_attribution
    scale = float(abs(a).max()) if len(a) else 0.0
    parts = {"question": [], "passage": []}
    for i, (tok, block) in enumerate(zip(sal.tokens, sal.blocks)):
        if block not in parts:
            continue
        text = html.escape(tok[2:] if tok.startswith("##") else tok)
        sep = "" if tok.startswith("##") else " "
        mark = "font-weight:bold; text-decoration: underline;" if i in (sal.start_index, sal.end_index) else ""
        parts[block].append(f'{sep}<span title="{a[i]:+.4f}" style="{colour(a[i], scale)}{mark}">{text}</span>')
    logit = sal.start_logit if which == "start" else sal.end_logit
    top = ", ".join(f"{t} {v:+.3f}" for _, t, v in sal.top_tokens(which, 5))
    return (f"<p><b>{which} logit</b> of token {sal.start_index if which == 'start' else sal.end_index} = "
            f"{logit:.3f}; largest |attribution|: {top}</p>"
            f"<p><b>question:</b>{''.join(parts['question'])}</p><p><b>passage:</b>{''.join(parts['passage'])}</p>"
            "<p style='color:#666; font-size:small'>gradient x input on the word embeddings; red raises the logit, "
            "blue lowers it; hover a token for its number; underlined: the span's start / end token.</p>")
