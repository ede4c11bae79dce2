"""The watched questions' attention block flow over training, from a run's ``eval`` events.

Every evaluation of a QA run records, per watched question, the block flow per layer (events.jsonl, ``eval``
events, ``watch[k]["flow"]``: ``"question->passage"`` etc. -> one value per layer, the mean over heads of
explorer.core.attention.flow.block_flow on the window the answer came from). :func:`flow_history` gathers them
into arrays a plot draws against the step: one line per layer, per block pair.

Pure python + numpy (no Qt, no torch).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np


@dataclass
class FlowHistory:
    """Block flow per layer of the watched questions at each evaluation.

    Attributes:
        steps: (n_evals,) float64 optimizer steps of the evaluations that recorded a flow (step 0 = before
            training), in event order.
        questions: the watched questions (the union over evaluations, first seen first).
        pairs: the block pairs recorded, "from->to" (e.g. "question->passage"), first seen first.
        layers: the number of layers (the longest list seen).
        values: pair -> float64 array (n_evals, n_questions, layers): the share of the from-block tokens'
            attention that goes to the to-block, NaN where an evaluation did not record that question.
    """

    steps: np.ndarray
    questions: list[str]
    pairs: list[str]
    layers: int
    values: dict[str, np.ndarray] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.steps.size and self.pairs)

    def lines(self, pair: str, question: int | None = None) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """One line per layer for ``pair``: [(layer (1-based), steps, values)], the values of question number
        ``question`` or, with None, the mean over the watched questions (NaN ones left out). Evaluations
        without a value are left out of each line.

        Raises:
            KeyError: a pair that was not recorded; IndexError: a question number out of range.
        """
        v = self.values[pair]
        if question is None:
            with warnings.catch_warnings():   # an all-NaN slice (no question recorded) is NaN, as meant
                warnings.simplefilter("ignore", RuntimeWarning)
                per = np.nanmean(v, axis=1)             # (n_evals, layers)
        else:
            if not 0 <= question < len(self.questions):
                raise IndexError(f"question {question} of {len(self.questions)}")
            per = v[:, question]
        out = []
        for layer in range(self.layers):
            y = per[:, layer]
            ok = np.isfinite(y)
            out.append((layer + 1, self.steps[ok], y[ok]))
        return out


def flow_history(events: Iterable[dict]) -> FlowHistory:
    """The FlowHistory of a run's events (any mix; only ``eval`` events with a ``watch`` list that has a
    ``flow`` count). Malformed rows (a flow that is not a dict of number lists) are skipped."""
    rows: list[tuple[float, dict[str, dict[str, list]]]] = []
    questions: list[str] = []
    pairs: list[str] = []
    layers = 0
    for ev in events:
        if ev.get("event") != "eval" or not isinstance(ev.get("watch"), list):
            continue
        at: dict[str, dict[str, list]] = {}
        for w in ev["watch"]:
            flow = w.get("flow") if isinstance(w, dict) else None
            if not isinstance(flow, dict):
                continue
            q = str(w.get("question", ""))
            clean = {str(k): [float(x) if isinstance(x, (int, float)) else np.nan for x in vals]
                     for k, vals in flow.items() if isinstance(vals, list)}
            if not clean:
                continue
            at[q] = clean
            if q not in questions:
                questions.append(q)
            for k, vals in clean.items():
                if k not in pairs:
                    pairs.append(k)
                layers = max(layers, len(vals))
        if at:
            rows.append((float(ev.get("step") or 0), at))
    values = {}
    for pair in pairs:
        v = np.full((len(rows), len(questions), layers), np.nan)
        for e, (_, at) in enumerate(rows):
            for q, flow in at.items():
                vals = flow.get(pair)
                if vals:
                    v[e, questions.index(q), :len(vals)] = vals
        values[pair] = v
    return FlowHistory(steps=np.array([s for s, _ in rows], dtype=np.float64), questions=questions, pairs=pairs,
                       layers=layers, values=values)
