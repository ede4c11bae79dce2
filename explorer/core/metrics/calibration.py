"""Are the probabilities right? Reliability diagrams, ECE, MCE, Brier score and temperature scaling (numpy,
scipy; Qt- and torch-free).

- Reliability diagram: the examples in 10 equal-width confidence bins over [0, 1] (the last bin closed);
  per bin its count, mean confidence and accuracy (the share that was right). Guo et al. 2017, "On
  calibration of modern neural networks", section 2 (the same bins as sklearn.calibration.calibration_curve
  with strategy="uniform", which drops empty bins; here every bin is kept with its count).
- ECE = sum_b (n_b / n) |acc_b - conf_b|; MCE = max over non-empty bins of |acc_b - conf_b| (Guo et al., eq. 3
  and 5). Brier score = mean (confidence - right)^2 over the examples (Brier 1950, for the binary event
  "the prediction is right").
- What "confidence" is: classification - the predicted class's softmax probability, "right" = the
  prediction is the gold label; SQuAD - the probability of the best span (softmax over the n-best span scores)
  against exact match, and for SQuAD 2.0 also answering vs abstaining: P(answer) = sigmoid(score_diff - tau)
  against "the question has an answer".
- Temperature scaling (Guo et al., section 4.2): softmax(z / T) with one T > 0 fitted by minimising the
  negative log-likelihood; argmax and so accuracy are unchanged. Fitted honestly as the honest τ
  (core.qa.scores.honest_tau): on one random half of dev and reported on the other half, both ways
  (:func:`honest_temperature`); the T saved with the run (``<run>/calibration.json``) is fitted on all of dev.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

N_BINS = 10
CALIBRATION_FILE = "calibration.json"


@dataclass
class Reliability:
    """A reliability diagram: edges (n_bins + 1,), counts (n_bins,) ints, confidence (n_bins,) mean
    confidence per bin and accuracy (n_bins,) share right per bin (NaN for an empty bin); ece, mce, brier in
    0..1; n examples."""

    edges: list[float]
    counts: list[int]
    confidence: list[float]
    accuracy: list[float]
    ece: float
    mce: float
    brier: float
    n: int

    def text(self) -> str:
        """"ECE 0.081, MCE 0.210, Brier 0.152 (n 408)"."""
        return f"ECE {self.ece:.3f}, MCE {self.mce:.3f}, Brier {self.brier:.3f} (n {self.n})"


def reliability(confidence, correct, n_bins: int = N_BINS) -> Reliability:
    """Reliability diagram, ECE, MCE and Brier score of confidences (n,) in [0, 1] against outcomes (n,)
    (True/1 = right).

    Raises ValueError: different lengths, no examples, a confidence outside [0, 1] or not finite."""
    c = np.asarray(confidence, dtype=float).ravel()
    y = np.asarray(correct, dtype=float).ravel()
    if c.shape != y.shape:
        raise ValueError(f"reliability: {c.size} confidences against {y.size} outcomes")
    if c.size == 0:
        raise ValueError("reliability: no examples")
    if not np.all(np.isfinite(c)) or c.min() < 0.0 or c.max() > 1.0:
        bad = int(np.flatnonzero(~np.isfinite(c) | (c < 0) | (c > 1))[0])
        raise ValueError(f"reliability: confidence {c[bad]!r} of example {bad} is not a probability in [0, 1]")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, c, side="right") - 1, 0, n_bins - 1)   # [e_i, e_{i+1}); 1.0 in the last
    counts = np.bincount(which, minlength=n_bins)
    sum_c = np.bincount(which, weights=c, minlength=n_bins)
    sum_y = np.bincount(which, weights=y, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf = np.where(counts > 0, sum_c / counts, np.nan)
        acc = np.where(counts > 0, sum_y / counts, np.nan)
    gap = np.abs(acc - conf)
    full = counts > 0
    ece = float(np.sum(counts[full] / c.size * gap[full]))
    mce = float(np.max(gap[full]))
    brier = float(np.mean((c - y) ** 2))
    return Reliability(edges.tolist(), counts.astype(int).tolist(), conf.tolist(), acc.tolist(), ece, mce, brier,
                       int(c.size))


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """softmax(logits / T) over the last axis, (n, K) -> (n, K)."""
    z = np.asarray(logits, dtype=float) / float(temperature)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def nll(logits, labels, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood of the gold labels (n,) under softmax(logits / T), nats per example."""
    z = np.asarray(logits, dtype=float) / float(temperature)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    y = np.asarray(labels, dtype=int)
    return float(-np.mean(logp[np.arange(len(y)), y]))


def classification_reliability(logits, labels, temperature: float = 1.0, n_bins: int = N_BINS) -> Reliability:
    """Reliability of a classifier: confidence = the predicted class's probability under softmax(z / T)."""
    p = softmax(logits, temperature)
    pred = np.argmax(p, axis=1)
    return reliability(p[np.arange(len(pred)), pred], pred == np.asarray(labels, dtype=int), n_bins)


def squad_reliability(best_span_probability, exact, n_bins: int = N_BINS) -> Reliability:
    """SQuAD: the probability of the best span (n,) against its exact match (n,) 0/1."""
    return reliability(best_span_probability, np.asarray(exact, dtype=float) == 1.0, n_bins)


def answer_reliability(score_diff, has_answer, tau: float = 0.0, n_bins: int = N_BINS) -> Reliability:
    """SQuAD 2.0, answering vs abstaining: P(answer) = sigmoid(score_diff - tau) (n,) against whether the
    question has a gold answer (n,) bool."""
    s = np.asarray(score_diff, dtype=float) - tau
    return reliability(1.0 / (1.0 + np.exp(-np.clip(s, -50, 50))), np.asarray(has_answer, dtype=bool), n_bins)


@dataclass
class SquadCalibration:
    """SQuAD's two reliability diagrams on one dev set: ``best_span`` - the best span's probability (softmax over
    the n-best span scores, as nbest_predictions.json) against its exact match, over the questions that have an
    answer; ``answering`` - P(answer) = sigmoid(score_diff - tau) against "the question has an answer", over
    every question (None for a SQuAD v1.1 set: every question has one). ``tau``: the threshold used."""

    best_span: Reliability | None
    answering: Reliability | None
    tau: float
    n: int

    def lines(self) -> list[str]:
        """One line per diagram, for the view and reports."""
        out = [f"SQuAD calibration on {self.n} dev questions (10 bins)"]
        if self.best_span is not None:
            out.append(f"best span's probability vs exact match (questions with an answer): {self.best_span.text()}")
        if self.answering is not None:
            out.append(f"answering vs abstaining, P(answer) = sigmoid(score_diff - τ), τ {self.tau:+.2f}: "
                       f"{self.answering.text()}")
        return out


def squad_calibration(decodings: dict, scores, tau: float = 0.0, n_bins: int = N_BINS) -> SquadCalibration:
    """Both SQuAD reliability diagrams from a dev study: ``decodings`` id -> core.qa.decoding.ExampleDecoding (its
    ``nbest_entries(with_null=False)[0]["probability"]`` is the best span's probability), ``scores`` the
    core.qa.scores.QuestionScores of the same questions (score_diff, has_ans, exact_span). A question without a
    span counts as probability 0. Raises ValueError for an empty dev set."""
    ids = list(scores.ids)
    if not ids:
        raise ValueError("SQuAD calibration: no dev questions")
    prob = np.array([(decodings[q].nbest_entries(with_null=False)[0]["probability"] if decodings[q].nbest else 0.0)
                     for q in ids], dtype=float)
    has = np.asarray(scores.has_ans, dtype=bool)
    span = squad_reliability(prob[has], np.asarray(scores.exact_span)[has], n_bins) if has.any() else None
    answering = answer_reliability(scores.score_diff, has, tau, n_bins) if (~has).any() else None
    return SquadCalibration(span, answering, float(tau), len(ids))


def fit_temperature(logits, labels) -> float:
    """The T > 0 minimising :func:`nll` (scipy.optimize.minimize_scalar over log T in [-3, 3], i.e. T in
    0.05..20). Raises ValueError: no examples, or labels outside the logits' classes."""
    from scipy.optimize import minimize_scalar

    z = np.asarray(logits, dtype=float)
    y = np.asarray(labels, dtype=int)
    if z.ndim != 2 or len(z) == 0 or len(z) != len(y):
        raise ValueError(f"temperature scaling: logits of shape {z.shape} against {len(y)} labels")
    if y.min() < 0 or y.max() >= z.shape[1]:
        raise ValueError(f"temperature scaling: labels must be 0..{z.shape[1] - 1} (got {y.min()}..{y.max()})")
    res = minimize_scalar(lambda log_t: nll(z, y, math.exp(log_t)), bounds=(-3.0, 3.0), method="bounded",
                          options={"xatol": 1e-5})
    return float(math.exp(res.x))


@dataclass
class HalfReport:
    """One held-out half: T fitted on the other half, the half's reliability before (T = 1) and after, its
    NLL before and after; ``indices`` of its examples."""

    temperature: float
    before: Reliability
    after: Reliability
    nll_before: float
    nll_after: float
    indices: list[int] = field(default_factory=list)


@dataclass
class Calibration:
    """What ``<run>/calibration.json`` holds: ``temperature`` fitted on all of dev (applied by predict),
    ``half_a`` / ``half_b`` (each reported with the T fitted on the other half), the pooled held-out
    ``before`` / ``after`` reliability, n, seed, and ``source`` (what the logits were)."""

    temperature: float
    half_a: HalfReport
    half_b: HalfReport
    before: Reliability
    after: Reliability
    n: int
    seed: int = 0
    source: str = ""

    def lines(self) -> list[str]:
        """A few lines for reports: T and ECE of each held-out half before and after."""
        out = [f"temperature T = {self.temperature:.3f} (fitted on all {self.n} dev examples)"]
        for name, h, other in (("A", self.half_a, "B"), ("B", self.half_b, "A")):
            out.append(f"half {name} ({len(h.indices)} examples), T {h.temperature:.3f} fitted on half {other}: "
                       f"ECE {h.before.ece:.3f} -> {h.after.ece:.3f}, NLL {h.nll_before:.3f} -> {h.nll_after:.3f}")
        out.append(f"held out, pooled: before {self.before.text()}; after {self.after.text()}")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def honest_temperature(logits, labels, seed: int = 0, n_bins: int = N_BINS, source: str = "") -> Calibration:
    """Temperature scaling fitted on one random half of dev and reported on the other half, both ways (as
    core.qa.scores.honest_tau); the saved T is fitted on everything. Pooled before/after = both held-out halves
    together, each at the T of the other half.

    Raises ValueError for fewer than 4 examples (and as :func:`fit_temperature`)."""
    z = np.asarray(logits, dtype=float)
    y = np.asarray(labels, dtype=int)
    n = len(y)
    if n < 4:
        raise ValueError(f"temperature scaling needs at least 4 dev examples (got {n})")
    perm = np.random.default_rng(seed).permutation(n)
    a, b = np.sort(perm[: n // 2]), np.sort(perm[n // 2:])
    t_a, t_b = fit_temperature(z[a], y[a]), fit_temperature(z[b], y[b])

    def half(idx, t):
        return HalfReport(t, classification_reliability(z[idx], y[idx], 1.0, n_bins),
                          classification_reliability(z[idx], y[idx], t, n_bins), nll(z[idx], y[idx]),
                          nll(z[idx], y[idx], t), idx.tolist())

    ha, hb = half(a, t_b), half(b, t_a)
    p_after = np.concatenate([softmax(z[a], t_b), softmax(z[b], t_a)])
    y_held = np.concatenate([y[a], y[b]])
    pred = np.argmax(p_after, axis=1)
    after = reliability(p_after[np.arange(n), pred], pred == y_held, n_bins)
    return Calibration(fit_temperature(z, y), ha, hb, classification_reliability(z, y, 1.0, n_bins), after, n,
                       seed, source)


def _reliability(d: dict) -> Reliability:
    return Reliability(**{k: d[k] for k in Reliability.__dataclass_fields__})


def calibration_from_dict(d: dict, source: str = CALIBRATION_FILE) -> Calibration:
    """The inverse of ``Calibration.to_dict``. Raises ValueError naming ``source`` and what was wrong."""
    try:
        halves = [HalfReport(h["temperature"], _reliability(h["before"]), _reliability(h["after"]), h["nll_before"],
                             h["nll_after"], list(h.get("indices", []))) for h in (d["half_a"], d["half_b"])]
        t = float(d["temperature"])
        if not (math.isfinite(t) and t > 0):
            raise ValueError(f"temperature {t!r} is not a positive number")
        return Calibration(t, *halves, _reliability(d["before"]), _reliability(d["after"]), int(d["n"]),
                           int(d.get("seed", 0)), str(d.get("source", "")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: not a calibration file ({type(exc).__name__}: {exc})") from None


def save_calibration(run_dir: str | Path, calibration: Calibration) -> Path:
    """Write ``<run_dir>/calibration.json``; returns its path."""
    path = Path(run_dir) / CALIBRATION_FILE
    path.write_text(json.dumps(calibration.to_dict(), indent=1), encoding="utf-8")
    return path


def run_dir_of_checkpoint(checkpoint: str | Path) -> Path | None:
    """The run folder of ``<run>/checkpoints/<name>`` (None for a folder elsewhere, e.g. a hub id): the run
    store's rule (core/runs.run_dir_of)."""
    from explorer.core.runs.layout import run_dir_of

    return run_dir_of(checkpoint)


def load_temperature(checkpoint: str | Path) -> float | None:
    """The temperature saved with a checkpoint's run (``<run>/calibration.json``, or one next to the
    checkpoint's own files), None when there is none. Raises ValueError for an unreadable file."""
    p = Path(checkpoint)
    for folder in (p, run_dir_of_checkpoint(p)):
        if folder is not None and (folder / CALIBRATION_FILE).is_file():
            path = folder / CALIBRATION_FILE
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}: unreadable ({exc})") from None
            return calibration_from_dict(data, str(path)).temperature
    return None
