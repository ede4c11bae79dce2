"""The τ study on a SQuAD dev set: run the model once, keep every question's decoding, and answer
"what happens at τ?" without another forward pass. Also the on-disk cache that makes reopening
a (model, file, cap) instant.

A study holds per question: id, title, question, context, gold answers and the ExampleDecoding
(n-best spans, null_score and its parts, score_diff). The figures come from
:mod:`explorer.core.qa.scores` (tau_sweep on the τ grid -6 ... +6, step 0.25 or wider (tau_grid), and on every distinct
score_diff, the official best-threshold search, honest_tau); nothing is recomputed here.

Cache: ``<cache dir>/tau_study/<key>.json.gz`` (gzip JSON, no pickle), ``key`` = sha1 of the model
fingerprint (source, config, QA-head weights), the data file's *contents* (sha256, streamed: an
edit that keeps the size and the modification time, as ``cp -p`` or ``rsync -t`` do, still gets a new
key), the cap and the window/decoding settings. The cache dir is ``$EXPLORER_CACHE_DIR`` or
``$XDG_CACHE_HOME/bert-explorer``
(default ``~/.cache/bert-explorer``).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from explorer.core.qa.decoding import ExampleDecoding, SpanCandidate

CACHE_FORMAT = 2   # 2: keys from file contents; span texts stripped (decoding.passage_span)
DEFAULT_SETTINGS = {"max_seq_length": 384, "doc_stride": 128, "max_query_length": 64, "n_best_size": 20,
                    "max_answer_length": 30}


from explorer.core.errors import Cancelled as StudyCancelled  # noqa: E402,F401 - raise it in progress to stop


@dataclass
class TauStudy:
    """One dev-set run.

    Attributes:
        ids, titles, questions: (n,) lists in file order (the first `cap` questions when capped).
        contexts: the distinct passages; context_index[k] is question k's passage.
        gold: id -> gold texts ([] = no answer).
        decodings: id -> ExampleDecoding.
        source, data_path, cap, settings: what was run; key: the cache key; seconds: inference time.
    """

    ids: list[str]
    titles: list[str]
    questions: list[str]
    contexts: list[str]
    context_index: list[int]
    gold: dict[str, list[str]]
    decodings: dict[str, ExampleDecoding]
    source: str
    data_path: str
    cap: int | None
    settings: dict = field(default_factory=lambda: dict(DEFAULT_SETTINGS))
    key: str = ""
    seconds: float = 0.0
    from_cache: bool = False
    note: str = ""          # a cache file that was unreadable and recomputed, named ("" when none)

    def __len__(self) -> int:
        return len(self.ids)

    def context(self, k: int) -> str:
        return self.contexts[self.context_index[k]]

    def score_diffs(self) -> np.ndarray:
        """(n,) score_diff per question, file order."""
        return np.array([self.decodings[q].score_diff for q in self.ids], dtype=np.float64)


# ------------------------------------------------------------------------------------------------ keys
def default_cache_dir() -> Path:
    """$EXPLORER_CACHE_DIR, else $XDG_CACHE_HOME/bert-explorer, else ~/.cache/bert-explorer."""
    env = os.environ.get("EXPLORER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bert-explorer"


def model_fingerprint(loaded) -> str:
    """sha1 of the source, the model config and the QA head's weights: a re-saved checkpoint (new
    weights) gets a new fingerprint even under the same folder name."""
    from explorer.core.models.loading import model_of

    model = model_of(loaded)
    h = hashlib.sha1()
    h.update(str(getattr(loaded, "source", "")).encode())
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "to_json_string"):
        h.update(config.to_json_string(use_diff=False).encode())
    head = getattr(model, "qa_outputs", None)
    for p in (head.parameters() if head is not None else []):
        h.update(p.detach().float().cpu().numpy().tobytes())
    return h.hexdigest()


def file_digest(path, chunk_size: int = 1 << 20) -> str:
    """sha256 hex digest of a file's bytes, read in chunks (a 40 MB dev set takes ~0.1 s).

    Raises:
        FileNotFoundError / OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk_size), b""):
            h.update(block)
    return h.hexdigest()


def study_key(loaded, data_path: str, cap: int | None, settings: dict | None = None) -> str:
    """The cache key of a (model, file contents, cap, settings) run. Raises FileNotFoundError for a
    missing file."""
    p = Path(data_path).expanduser().resolve()
    payload = {"format": CACHE_FORMAT, "model": model_fingerprint(loaded), "file": str(p),
               "sha256": file_digest(p), "cap": cap, "settings": dict(DEFAULT_SETTINGS, **(settings or {}))}
    return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


# ------------------------------------------------------------------------------------------------ run
def run_study(loaded, data_path: str, cap: int | None = None, *, settings: dict | None = None,
              progress: Callable[[int, int], None] | None = None, batch_size: int = 32,
              cache_dir: Path | None = None, use_cache: bool = True) -> TauStudy:
    """Run (or reload from the cache) a dev-set study.

    Args:
        loaded: a LoadedModel (explorer.core.models.loading).
        data_path: a SQuAD-format JSON (v2.0 for the τ figures; v1.1 works but has no NoAns side).
        cap: use only the first `cap` questions of the file (None or 0 = all).
        settings: max_seq_length, doc_stride, max_query_length, n_best_size, max_answer_length.
        progress: called as progress(done_windows, total_windows) from the inference loop; raise
            StudyCancelled in it to stop.
        cache_dir: where studies are cached (default_cache_dir()); use_cache=False skips reading it
            (the result is still written).

    Returns:
        TauStudy (from_cache=True when it came from disk).

    Raises:
        SquadDataError: the file cannot be loaded; StudyCancelled: progress raised it; OSError: cache
        folder not writable is *not* raised (the study is returned uncached).
    """
    from explorer.core.data.squad import gold_answers, load_squad
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad

    settings = dict(DEFAULT_SETTINGS, **(settings or {}))
    cap = int(cap) if cap else None
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = study_key(loaded, data_path, cap, settings)
    note = ""
    if use_cache:
        cached, note = read_cached_study(key, cache_dir)
        if cached is not None:
            return cached
    ds, _report = load_squad(data_path)
    if cap is not None and cap < len(ds):
        ds = ds.select(range(cap))
    t0 = time.perf_counter()
    features, start_logits, end_logits = predict_squad(
        loaded, ds, max_seq_length=settings["max_seq_length"], doc_stride=settings["doc_stride"],
        max_query_length=settings["max_query_length"], batch_size=batch_size, progress=progress)
    decodings = decode_predictions(ds, features, start_logits, end_logits, n_best_size=settings["n_best_size"],
                                   max_answer_length=settings["max_answer_length"])
    seconds = time.perf_counter() - t0
    contexts: list[str] = []
    where: dict[str, int] = {}
    context_index = []
    for c in ds["context"]:
        if c not in where:
            where[c] = len(contexts)
            contexts.append(c)
        context_index.append(where[c])
    study = TauStudy(ids=list(ds["id"]), titles=list(ds["title"]), questions=list(ds["question"]),
                     contexts=contexts, context_index=context_index, gold=gold_answers(ds), decodings=decodings,
                     source=str(getattr(loaded, "source", "")), data_path=str(data_path), cap=cap,
                     settings=settings, key=key, seconds=seconds, note=note)
    try:
        save_study(study, cache_dir)
    except OSError:
        pass
    return study


# ------------------------------------------------------------------------------------------------ cache
def _num(x: float):
    return x if math.isfinite(x) else ("-inf" if x < 0 else "inf")


def _unnum(x) -> float:
    return float(x)  # "inf" / "-inf" strings included


def _decoding_to_json(d: ExampleDecoding) -> dict:
    return {"nbest": [[c.text, c.start_char, c.end_char, c.start_token, c.end_token, c.window_index,
                       c.start_logit, c.end_logit, c.score] for c in d.nbest],
            "null": [d.null_score, d.null_start_logit, d.null_end_logit, d.null_window],
            "best": _num(d.best_non_null_score), "diff": _num(d.score_diff), "n_windows": d.n_windows}


def _decoding_from_json(qid: str, j: dict) -> ExampleDecoding:
    nbest = [SpanCandidate(text=c[0], start_char=c[1], end_char=c[2], start_token=c[3], end_token=c[4],
                           window_index=c[5], start_logit=c[6], end_logit=c[7], score=c[8]) for c in j["nbest"]]
    ns, nsl, nel, nw = j["null"]
    return ExampleDecoding(example_id=qid, nbest=nbest, null_score=ns, null_start_logit=nsl, null_end_logit=nel,
                           null_window=nw, best_non_null_score=_unnum(j["best"]), score_diff=_unnum(j["diff"]),
                           n_windows=j.get("n_windows", 1))


def cache_path(key: str, cache_dir: Path | None = None) -> Path:
    return (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / "tau_study" / f"{key}.json.gz"


def save_study(study: TauStudy, cache_dir: Path | None = None) -> Path:
    """Write the study as gzip JSON (atomic rename). Raises OSError when the folder is not writable."""
    path = cache_path(study.key, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": CACHE_FORMAT, "key": study.key, "source": study.source, "data_path": study.data_path,
               "cap": study.cap, "settings": study.settings, "seconds": study.seconds, "ids": study.ids,
               "titles": study.titles, "questions": study.questions, "contexts": study.contexts,
               "context_index": study.context_index, "gold": study.gold,
               "decodings": {q: _decoding_to_json(study.decodings[q]) for q in study.ids}}
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        json.dump(payload, fh, ensure_ascii=False)
    tmp.replace(path)
    return path


def _consistent(j: dict) -> bool:
    """The cached lists line up and hold the right kinds (a damaged cache is recomputed, never shown)."""
    ids, gold, ci = j["ids"], j["gold"], j["context_index"]
    n = len(ids)
    return (isinstance(ids, list) and all(isinstance(q, str) for q in ids) and len(set(ids)) == n
            and len(j["titles"]) == len(j["questions"]) == len(ci) == n and isinstance(gold, dict)
            and all(isinstance(gold.get(q), list) and all(isinstance(t, str) for t in gold[q]) for q in ids)
            and all(isinstance(k, int) and 0 <= k < len(j["contexts"]) for k in ci)
            and all(q in j["decodings"] for q in ids))


def load_study(key: str, cache_dir: Path | None = None) -> TauStudy | None:
    """The cached study for a key, or None when absent, unreadable, of another format or inconsistent
    (then the caller recomputes it)."""
    return read_cached_study(key, cache_dir)[0]


def read_cached_study(key: str, cache_dir: Path | None = None) -> tuple[TauStudy | None, str]:
    """(cached study or None, note). The note is "" when the cache file is absent or fine, else it names
    the file and what was wrong (truncated gzip, not JSON, missing fields, lists that do not line up);
    such a file is removed so the recomputed study replaces it. A file of another CACHE_FORMAT is skipped
    without a note."""
    path = cache_path(key, cache_dir)
    if not path.exists():
        return None, ""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            j = json.load(fh)
        if not isinstance(j, dict):
            raise ValueError(f"a {type(j).__name__}, not an object")
        if j.get("format") != CACHE_FORMAT:   # written by another version: not an error, just not ours
            return None, ""
        if not _consistent(j):
            raise ValueError("its lists do not line up")
        decodings = {q: _decoding_from_json(q, j["decodings"][q]) for q in j["ids"]}
        return TauStudy(ids=j["ids"], titles=j["titles"], questions=j["questions"], contexts=j["contexts"],
                        context_index=j["context_index"], gold=j["gold"], decodings=decodings, source=j["source"],
                        data_path=j["data_path"], cap=j["cap"], settings=j["settings"], key=j["key"],
                        seconds=j["seconds"], from_cache=True), ""
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError) as exc:
        with contextlib.suppress(OSError):
            path.unlink()
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return None, f"cache file {path} was unreadable ({why[:160]}); recomputed"


# ------------------------------------------------------------------------------------------------ figures
@dataclass
class StudyFigures:
    """Everything the τ view plots, from explorer.core.qa.scores.

    grid: TauSweep on the τ grid (scores.tau_grid: -6 ... +6, step 0.25, widened to the questions' score_diff); exact: TauSweep at every distinct score_diff
    and one below the smallest (every distinct set of answered questions, like the official exhaustive
    threshold search); official: the
    evaluate_decodings dict at tau=0 (exact_match, f1, HasAns_*, NoAns_*, best_f1, best_f1_thresh,
    best_tau); honest: honest_tau dict; scores: metrics.QuestionScores (per question, file order).
    """

    grid: object
    exact: object
    official: dict
    honest: dict | None
    scores: object


def study_figures(study: TauStudy, seed: int = 0) -> StudyFigures:
    """Sweeps, the official best threshold and the honest τ of a study (milliseconds for 4k questions)."""
    from explorer.core.qa.scores import evaluate_decodings, honest_tau, question_scores_from, tau_grid, tau_sweep

    gold = {q: study.gold[q] for q in study.ids}
    scores = question_scores_from(study.decodings, gold)
    taus = tau_grid(scores.score_diff)
    grid = tau_sweep(scores, taus=taus)
    finite = np.unique(scores.score_diff[np.isfinite(scores.score_diff)])
    exact_taus = np.concatenate([[finite[0] - 1.0] if finite.size else [0.0], finite]) if finite.size else np.zeros(1)
    exact = tau_sweep(scores, taus=exact_taus)
    official = evaluate_decodings(study.decodings, gold, tau=0.0, version="v2.0")
    honest = honest_tau(scores, taus=taus, seed=seed) if len(scores) >= 2 else None
    return StudyFigures(grid=grid, exact=exact, official=official, honest=honest, scores=scores)


def questions_near(score_diff: np.ndarray, tau: float, k: int = 100) -> np.ndarray:
    """Indices of the k questions whose score_diff is closest to tau (|score_diff - tau| ascending):
    the questions a small move of τ would flip."""
    d = np.abs(np.asarray(score_diff, dtype=np.float64) - tau)
    d[~np.isfinite(d)] = np.inf
    k = min(k, d.size)
    idx = np.argpartition(d, k - 1)[:k] if 0 < k < d.size else np.arange(d.size)
    return idx[np.argsort(d[idx], kind="stable")]
