"""Span decoding: start/end logits of every window -> n-best answer spans, null score, tau decision.

The BERT paper (Section 4.2) scores a span from token i to token j as ``S.T_i + E.T_j`` (=
``start_logits[i] + end_logits[j]``) over ``i <= j``; Section 4.3 (SQuAD 2.0) compares the best
span with the no-answer score ``s_null = S.C + E.C`` (the span that starts and ends at [CLS]) and
answers iff ``best_non_null_score > s_null + tau``. Google's run_squad.py (``write_predictions``)
and Hugging Face's run_qa.py (``postprocess_qa_predictions``) implement the same search:

- per window, the ``n_best_size`` best start tokens x the ``n_best_size`` best end tokens,
  ``end >= start``, ``end - start + 1 <= max_answer_length``, both tokens in the passage;
  (we pick the top starts/ends among passage tokens only, so a window whose question tokens score
  high still contributes ``n_best_size`` passage candidates);
- windows of one example are merged; ``null_score`` is the *minimum* over windows of
  ``start_logits[cls] + end_logits[cls]``;
- ``score_diff = best_non_null_score - null_score``; answer iff ``score_diff > tau``.

Everything here is numpy; no torch, no Qt.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

NULL_ODDS_CLIP = 1e6  # null_odds.json must hold finite JSON numbers: +-inf is written as +-1e6


@dataclass
class SpanCandidate:
    """One answer span.

    text = context[start_char:end_char], never empty and without leading/trailing white space
    (:func:`passage_span`); start_token/end_token index into window ``window_index``
    (inclusive); score = start_logit + end_logit (logit units).
    """

    text: str
    start_char: int
    end_char: int
    start_token: int
    end_token: int
    window_index: int
    start_logit: float
    end_logit: float
    score: float


@dataclass
class ExampleDecoding:
    """Decoding of one question over all its windows.

    Attributes:
        example_id: the SQuAD question id.
        nbest: up to n_best_size non-null spans, best first, unique by text (as the official nbest).
        null_score: min over windows of start_logits[cls] + end_logits[cls].
        null_start_logit, null_end_logit: the two parts of null_score; null_window: which window
            (index among this example's windows, 0-based).
        best_non_null_score: nbest[0].score, or -inf when no valid span exists.
        score_diff: best_non_null_score - null_score (-inf when no valid span).
    """

    example_id: str
    nbest: list[SpanCandidate]
    null_score: float
    null_start_logit: float
    null_end_logit: float
    null_window: int
    best_non_null_score: float
    score_diff: float
    n_windows: int = 1
    extra: dict = field(default_factory=dict)

    def answer(self, tau: float = 0.0) -> str:
        """The SQuAD 2.0 decision: nbest[0].text if score_diff > tau else "" (no answer)."""
        if self.nbest and self.score_diff > tau:
            return self.nbest[0].text
        return ""

    @property
    def best_text(self) -> str:
        """Best non-null span text regardless of tau (the SQuAD v1.1 answer); "" if none."""
        return self.nbest[0].text if self.nbest else ""

    def nbest_entries(self, with_null: bool = True) -> list[dict]:
        """Official nbest_predictions.json entries: text, probability, start_logit, end_logit.

        Probabilities are the softmax of start_logit + end_logit over the listed entries (Google's
        run_squad.py ``_compute_softmax``); with_null adds the empty-text null entry (SQuAD 2.0),
        sorted in among the spans by score.
        """
        entries = [{"text": c.text, "start_logit": c.start_logit, "end_logit": c.end_logit, "score": c.score}
                   for c in self.nbest]
        if with_null:
            entries.append({"text": "", "start_logit": self.null_start_logit,
                            "end_logit": self.null_end_logit, "score": self.null_score})
            entries.sort(key=lambda d: -d["score"])
        if not entries:
            entries = [{"text": "empty", "start_logit": 0.0, "end_logit": 0.0, "score": 0.0}]
        scores = np.array([d["score"] for d in entries], dtype=np.float64)
        probs = np.exp(scores - scores.max())
        probs /= probs.sum()
        return [{"text": d["text"], "probability": float(p), "start_logit": float(d["start_logit"]),
                 "end_logit": float(d["end_logit"])} for d, p in zip(entries, probs)]


def passage_span(context: str, start_char: int, end_char: int) -> tuple[int, int, str]:
    """``context[start_char:end_char]`` without leading/trailing white space, offsets moved to match.

    Token offsets can include white space (a token covering "Paris " in "Paris  is big", or one
    covering only a no-break space): the returned text always equals ``context[start:end]`` and is
    "" for a white-space-only span (such a candidate never enters the n-best). White space is
    ``str.isspace`` (Unicode, so U+00A0 and U+3000 count).

    Returns:
        (start, end, text) in characters; (start, start, "") when nothing but white space is covered.
    """
    raw = context[start_char:end_char]
    if raw and not raw[0].isspace() and not raw[-1].isspace():   # the common case: nothing to strip
        return int(start_char), int(end_char), raw
    text = raw.strip()
    if not text:
        return int(start_char), int(start_char), ""
    start = int(start_char) + (len(raw) - len(raw.lstrip()))
    return start, start + len(text), text


def passage_mask(offsets: list) -> np.ndarray:
    """(seq,) bool: True where the token belongs to the passage (offset is not None)."""
    return np.fromiter((o is not None for o in offsets), dtype=bool, count=len(offsets))


def span_score_table(start_logits, end_logits, offsets, *, max_answer_length: int = 30) -> np.ndarray:
    """Every span score of one window, for display: ``table[i, j] = start_logits[i] + end_logits[j]``.

    Args:
        start_logits, end_logits: (seq,) or longer (padding beyond len(offsets) is ignored).
        offsets: the window's offset_mapping (None for question/special tokens), length n.
        max_answer_length: longest span in tokens.

    Returns:
        (n, n) float64 array with NaN in invalid cells: j < i, j >= i + max_answer_length, or either
        token outside the passage (paper Section 4.2; run_squad.py conditions).
    """
    n = len(offsets)
    s = np.asarray(start_logits, dtype=np.float64)[:n]
    e = np.asarray(end_logits, dtype=np.float64)[:n]
    if s.shape[0] < n or e.shape[0] < n:
        raise ValueError(f"span_score_table: {n} offsets but {s.shape[0]} start / {e.shape[0]} end logits")
    table = s[:, None] + e[None, :]
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    p = passage_mask(offsets)
    valid = (j >= i) & (j < i + max_answer_length) & p[:, None] & p[None, :]
    table[~valid] = np.nan
    return table


def _window_candidates(s: np.ndarray, e: np.ndarray, pmask: np.ndarray, n_best_size: int,
                       max_answer_length: int):
    """Top n starts x top n ends among passage tokens -> (scores, i, j) of valid cells, vectorised."""
    idx = np.flatnonzero(pmask)
    if idx.size == 0:
        return np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    k = min(n_best_size, idx.size)
    sp, ep = s[idx], e[idx]
    if k < idx.size:
        si = idx[np.argpartition(-sp, k - 1)[:k]]
        ei = idx[np.argpartition(-ep, k - 1)[:k]]
    else:
        si, ei = idx, idx
    grid = s[si][:, None] + e[ei][None, :]
    ii = np.broadcast_to(si[:, None], grid.shape)
    jj = np.broadcast_to(ei[None, :], grid.shape)
    valid = (jj >= ii) & (jj - ii + 1 <= max_answer_length)
    return grid[valid], ii[valid], jj[valid]


def decode_example(context: str, start_logits: list, end_logits: list, offsets: list[list],
                   cls_indices: list[int], *, n_best_size: int = 20, max_answer_length: int = 30,
                   example_id: str = "") -> ExampleDecoding:
    """n-best spans and null score of one example over all its windows.

    Args:
        context: the passage (offsets index into it).
        start_logits, end_logits: one (seq_w,) array per window (longer arrays are cut to
            len(offsets[w]), so padded model outputs can be passed as they are).
        offsets: one offset_mapping per window (None for non-passage tokens).
        cls_indices: position of [CLS] (the null position) per window.
        n_best_size: starts and ends tried per window, and length of the returned nbest.
        max_answer_length: longest span in tokens (end - start + 1).
        example_id: carried into the result.

    Returns:
        ExampleDecoding (nbest unique by text, best first).

    Raises:
        ValueError: lists of different lengths or no window at all.
    """
    nw = len(offsets)
    if nw == 0 or not (len(start_logits) == len(end_logits) == len(cls_indices) == nw):
        raise ValueError(f"decode_example({example_id!r}): {nw} windows of offsets, {len(start_logits)} start, "
                         f"{len(end_logits)} end logits, {len(cls_indices)} cls indices")
    null_score = math.inf
    null_parts = (0.0, 0.0, 0)
    all_scores, all_w, all_i, all_j, window_logits = [], [], [], [], []
    for w in range(nw):
        n = len(offsets[w])
        s = np.asarray(start_logits[w], dtype=np.float64)[:n]
        e = np.asarray(end_logits[w], dtype=np.float64)[:n]
        c = int(cls_indices[w])
        ns = s[c] + e[c]
        if ns < null_score:
            null_score, null_parts = float(ns), (float(s[c]), float(e[c]), w)
        sc, ii, jj = _window_candidates(s, e, passage_mask(offsets[w]), n_best_size, max_answer_length)
        all_scores.append(sc)
        all_i.append(ii)
        all_j.append(jj)
        all_w.append(np.full(sc.shape, w, dtype=np.int64))
        window_logits.append((s, e))
    nbest: list[SpanCandidate] = []
    scores = np.concatenate(all_scores)
    if scores.size:
        ws, iis, jjs = np.concatenate(all_w), np.concatenate(all_i), np.concatenate(all_j)
        order = np.argsort(-scores, kind="stable")
        seen = set()
        for r in order:
            w, i, j = int(ws[r]), int(iis[r]), int(jjs[r])
            start_char, end_char = offsets[w][i][0], offsets[w][j][1]
            text = context[start_char:end_char]
            if not text or text[0].isspace() or text[-1].isspace():   # rare: strip, move the offsets
                start_char, end_char, text = passage_span(context, start_char, end_char)
            if not text or text in seen:
                continue
            seen.add(text)
            s, e = window_logits[w]
            nbest.append(SpanCandidate(text=text, start_char=int(start_char), end_char=int(end_char),
                                       start_token=i, end_token=j, window_index=w, start_logit=float(s[i]),
                                       end_logit=float(e[j]), score=float(scores[r])))
            if len(nbest) >= n_best_size:
                break
    best = nbest[0].score if nbest else -math.inf
    return ExampleDecoding(example_id=str(example_id), nbest=nbest, null_score=null_score,
                           null_start_logit=null_parts[0], null_end_logit=null_parts[1],
                           null_window=null_parts[2], best_non_null_score=best,
                           score_diff=best - null_score, n_windows=nw)


def _columns(examples) -> tuple[list[str], list[str]]:
    """(ids, contexts) from a datasets.Dataset or a list of dicts."""
    if hasattr(examples, "column_names"):
        return list(examples["id"]), list(examples["context"])
    return [str(x["id"]) for x in examples], [x["context"] for x in examples]


def decode_predictions(examples, features, start_logits, end_logits, *, n_best_size: int = 20,
                       max_answer_length: int = 30, decode_one=None) -> dict[str, ExampleDecoding]:
    """Decode every example from the logits of all windows.

    Args:
        examples: datasets.Dataset or list of dicts with ``id`` and ``context`` (the examples given to
            prepare_qa_features, same order).
        features: QAFeatures (example_index, offset_mapping, cls_index per window).
        start_logits, end_logits: (n_features, seq) array (padded positions ignored) or a list of
            (seq_k,) arrays, one per window.
        n_best_size, max_answer_length: as in :func:`decode_example`.
        decode_one: the function that decodes one example (default :func:`decode_example`; another rule:
            explorer.core.qa.decode_rules.decoder_of).

    Returns:
        dict example id -> ExampleDecoding, in example order (examples without windows are absent).

    Raises:
        ValueError: logits count differs from the number of windows, or duplicate example ids.
    """
    ids, contexts = _columns(examples)
    n = len(features.example_index)
    if len(start_logits) != n or len(end_logits) != n:
        raise ValueError(f"decode_predictions: {n} windows but {len(start_logits)} start / "
                         f"{len(end_logits)} end logits")
    decode_one = decode_one or decode_example
    out: dict[str, ExampleDecoding] = {}
    for ex, ks in sorted(features.windows_of().items()):
        qid = ids[ex]
        if qid in out:
            raise ValueError(f"decode_predictions: duplicate example id {qid!r} (example {ex})")
        out[qid] = decode_one(contexts[ex], [start_logits[k] for k in ks], [end_logits[k] for k in ks],
                                  [features.offset_mapping[k] for k in ks],
                                  [features.cls_index[k] for k in ks], n_best_size=n_best_size,
                                  max_answer_length=max_answer_length, example_id=qid)
    return out


def predictions_at(decodings: dict[str, ExampleDecoding], tau: float | None = 0.0) -> dict[str, str]:
    """id -> answer text. tau=None: always the best span (SQuAD v1.1); else the tau decision (v2.0)."""
    if tau is None:
        return {k: d.best_text for k, d in decodings.items()}
    return {k: d.answer(tau) for k, d in decodings.items()}


def null_odds(decodings: dict[str, ExampleDecoding]) -> dict[str, float]:
    """id -> null_score - best_non_null_score (= -score_diff; official convention: higher = more likely no
    answer), clipped to +-NULL_ODDS_CLIP so the JSON stays finite."""
    return {k: float(np.clip(-d.score_diff, -NULL_ODDS_CLIP, NULL_ODDS_CLIP)) for k, d in decodings.items()}


def json_one_key_per_line(mapping: dict) -> str:
    """``mapping`` as a JSON object with one key per line and each value written compactly: the same data as
    ``json.dumps(mapping, indent=2)`` (json.loads gives equal objects), written by the C encoder (indent
    switches json to its pure-Python encoder, several times slower on 12k questions' n-best lists)."""
    if not mapping:
        return "{}\n"
    rows = [f"  {json.dumps(str(k), ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
            for k, v in mapping.items()]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def write_official_files(decodings: dict[str, ExampleDecoding], out_dir, tau: float = 0.0, *,
                         version_2_with_negative: bool = True) -> dict[str, Path]:
    """Write predictions.json, nbest_predictions.json and (SQuAD 2.0) null_odds.json, official formats.

    - predictions.json: {id: answer text}; "" = no answer (v2.0 decision ``score_diff > tau``); for v1.1
      (``version_2_with_negative=False``) always the best span.
    - nbest_predictions.json: {id: [{text, probability, start_logit, end_logit}, ...]} as Google's
      run_squad.py writes it (v2.0: with the null entry of empty text).
    - null_odds.json (v2.0 only): {id: null_score - best_non_null_score} = -score_diff, the file
      evaluate-v2.0.py reads with ``--na-prob-file``.

    Returns:
        dict name -> path written. Raises OSError if out_dir cannot be created/written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    preds = predictions_at(decodings, tau if version_2_with_negative else None)
    nbest = {k: d.nbest_entries(with_null=version_2_with_negative) for k, d in decodings.items()}
    paths = {"predictions": out / "predictions.json", "nbest_predictions": out / "nbest_predictions.json"}
    paths["predictions"].write_text(json.dumps(preds, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["nbest_predictions"].write_text(json_one_key_per_line(nbest), encoding="utf-8")
    if version_2_with_negative:
        paths["null_odds"] = out / "null_odds.json"
        paths["null_odds"].write_text(json.dumps(null_odds(decodings), indent=2) + "\n", encoding="utf-8")
    return paths
