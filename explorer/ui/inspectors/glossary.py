"""Tooltips for the terms the inspectors use, and the small shared look (block colours, headers)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

TERMS: dict[str, str] = {
    "s_null": ("null_score (s_null) = start_logits[CLS] + end_logits[CLS]: the score of the 'span' that "
               "starts and ends at [CLS], i.e. the model's score for 'no answer'. With several windows, "
               "the smallest over the windows (run_squad.py convention)."),
    "best_non_null_score": ("best_non_null_score = max over valid spans i <= j < i + max_answer_length, "
                            "inside the passage, of start_logits[i] + end_logits[j] (S.T_i + E.T_j)."),
    "score_diff": ("score_diff = best_non_null_score - null_score. The model answers iff score_diff > tau "
                   "(BERT paper, section 4.3). null_odds.json stores -score_diff."),
    "tau": ("tau: the no-answer threshold. Answer iff best_non_null_score > null_score + tau. A larger tau "
            "answers less often. The paper picks tau on the dev set to maximise F1."),
    "doc_stride": ("doc_stride: when a passage does not fit in max_seq_length tokens it is cut into "
                   "overlapping windows; doc_stride is the overlap in tokens (128 in the paper's scripts)."),
    "n_best_size": ("n_best_size: only the top n_best_size start positions and top n_best_size end positions "
                    "are paired when searching for the best span (20 by default)."),
    "max_answer_length": "max_answer_length: longest span considered, in tokens (30 by default).",
    "max_seq_length": "max_seq_length: tokens per window including [CLS] and [SEP] (384 by default).",
    "block flow": ("block flow: for one layer (and head), each from-token's attention weights are summed over "
                   "the tokens of the to-block, then averaged over the from-block's tokens (and over heads). "
                   "Blocks: question, passage, special ([CLS], [SEP])."),
    "rollout": ("attention rollout (Abnar & Zuidema 2020): average the heads, add the identity for the "
                "residual connection (A' = (A + I) / 2, rows renormalised) and multiply the layers: how much "
                "each input token ends up mixed into each position at the last layer."),
    "honest": ("honest tau: tau chosen on a random half of the questions and F1 measured on the other half "
               "(and vice versa). Choosing tau and scoring on the same questions flatters the score."),
    "byhand": ("by-hand check: start logits recomputed as S.T_i from the last hidden states and the QA "
               "head's weights, compared with the model's start_logits. A tiny difference means the "
               "displayed scores are exactly what the formula says."),
}

BLOCK_COLORS: dict[str, QColor] = {
    "question": QColor(31, 119, 180),
    "passage": QColor(44, 160, 44),
    "special": QColor(127, 127, 127),
}


def block_color(block: str) -> QColor:
    return BLOCK_COLORS.get(block, QColor(127, 127, 127))


def tip(term: str) -> str:
    """The tooltip text for a term; KeyError names the term when it is not in the glossary."""
    return TERMS[term]


def header(text: str) -> QLabel:
    """The one-line 'what this panel shows' header of a view."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: palette(mid); font-style: italic; padding: 2px;")
    label.setObjectName("panelHeader")
    return label


def term_label(text: str, term: str) -> QLabel:
    """A label with the glossary tooltip of `term` and a dotted underline hinting at it."""
    label = QLabel(text)
    label.setToolTip(tip(term))
    label.setStyleSheet("text-decoration: underline dotted;")
    return label
