"""Label a whole file with a checkpoint, streaming: read, tokenize, run, write in chunks (constant memory).

``predict_file`` is what ``bert-explorer predict`` and the app's "Predict on a file…" run. Per chunk of
``chunk_rows`` input rows: the texts are tokenized with the model's tokenizer exactly as training and Classify
do (``tokenizer(text_a[, text_b], truncation=True, max_length=max_seq_length)``), cut into length-sorted
batches (:func:`explorer.core.qa.inference.batch_order`: each batch padded to its own longest sequence), run
under ``torch.inference_mode``, and written in input order. QA runs the project's own
:func:`explorer.core.qa.inference.predict_squad` and :func:`explorer.core.qa.decoding.decode_predictions`, so its
answers are those of ``bert-explorer eval`` (SQuAD 2.0 decision: answer iff score_diff > τ, else "" as in the
official predictions.json; SQuAD v1.1 checkpoints always answer).

Output columns (scripts may rely on them), after the input columns:

- classification: ``predicted_label``, ``p_<label>`` per class (softmax; they sum to 1), ``margin``
  (top probability - second);
- regression: ``predicted_score``;
- multi-label: ``predicted_labels`` (the labels whose sigmoid probability >= their threshold; a JSON list, in
  CSV / TSV / xlsx cells as its JSON text, e.g. ``["sports", "tech"]``), ``p_<label>``;
- token tagging (ner): ``entities`` (a JSON list of ``{"text", "type", "start", "end"}``, character offsets
  in the text, end exclusive; tags from each word's first piece, entities as seqeval's strict IOB2 reads them),
  ``words`` (the words tagged, space-separated: the text split by the rule the model's training words were
  formed by, recorded with the run, explorer.core.data.words), ``tags`` (the tag of every word,
  space-separated);
- SWAG: ``predicted_ending`` (0..3), ``p_ending0``..``p_ending3`` (softmax across the four endings);
- QA: ``answer``, ``answer_start``, ``answer_end`` (character offsets in the context, end exclusive),
  ``score_diff``, ``null_score``, ``decision`` ("answer" / "abstain"), ``window`` (0-based window of the best
  span), ``other_rule_answer`` (the answer under the other decode rule, explorer.core.qa.decode_rules, where it
  differs: "" when both rules agree, "(no answer)" where the other abstains);
- every task: ``error`` ("" or why the row could not be used; its prediction cells are empty).

Every input row gives one output row, in input order. One stop rule for every head: a chunk's rows run in
batches of ``batch_size`` rows sorted by the length of their texts over the whole chunk (little padding), and
``cancelled()`` is asked before each batch; a True stops there, at once after the batch under way. OUT gets the
rows up to the first row not run, in input order; the predictions of the rows run after it are kept beside OUT in
OUT.ahead.jsonl (explorer.core.predict.writing.save_ahead), and ``resume=True`` continues after the rows in OUT,
taking those kept predictions instead of running their rows again (each row written once, no row run twice).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from explorer.core.data.columns_guess import text_columns_for
from explorer.core.errors import Cancelled, UserError
from explorer.core.models.eval_mode import inference
from explorer.core.predict.facts import CheckpointFacts, checkpoint_facts
from explorer.core.specs.heads import HeadSpec, Inputs, Scores
from explorer.core.specs.tasks import find_task_facts
from explorer.core.predict.reading import (PredictDataError, Row, TableInfo, iter_rows, reads_without_header,
                                           skipped_note, text_of)
from explorer.core.predict.seen import keyed_rows, training_keys, training_rows
from explorer.core.predict.writing import RowWriter, count_rows, finish, load_ahead, out_kind, save_ahead



@dataclass
class PredictSummary:
    """What a run did. rows: output rows in OUT now (resumed ones included); new_rows: written by this call;
    kept_ahead: of them, the rows an earlier, stopped call had run ahead of the rows it wrote (OUT.ahead.jsonl),
    written from its kept predictions, not run again (:attr:`run_rows`: the rows this call ran); resumed_from: rows
    already there at the start; errors: rows with an error (of the rows this call wrote); seconds: wall time
    of this call; load_seconds: of it, loading the model; kind, columns (of OUT), label_names, tau (QA), input_columns, text_columns, notes;
    training_rows: rows of the file (a resume's skipped rows included) the checkpoint's run trained on
        (explorer.core.predict.seen)."""

    out: str
    data: str
    model: str
    kind: str
    rows: int = 0
    new_rows: int = 0
    kept_ahead: int = 0
    resumed_from: int = 0
    errors: int = 0
    seconds: float = 0.0
    load_seconds: float = 0.0
    columns: list[str] = field(default_factory=list)
    input_columns: list[str] = field(default_factory=list)
    text_columns: list[str] = field(default_factory=list)
    label_names: list[str] = field(default_factory=list)
    tau: float | None = None
    notes: list[str] = field(default_factory=list)
    training_rows: int = 0   # rows of the file whose texts the checkpoint's run trained on

    @property
    def run_rows(self) -> int:
        """The rows this call ran through the model (or found unusable): those it wrote less the ones it took from
        an earlier call's kept predictions (:attr:`kept_ahead`)."""
        return self.new_rows - self.kept_ahead

    @property
    def rows_per_second(self) -> float:
        """Rows this call ran (:attr:`run_rows`) per second of reading, running and writing (the model load left
        out): rows kept from an earlier call took no time here."""
        run = self.seconds - self.load_seconds
        return self.run_rows / run if run > 0 else 0.0

    def to_dict(self) -> dict:
        import dataclasses

        return dataclasses.asdict(self)


def prediction_columns(head: HeadSpec, label_names: list[str]) -> list[str]:
    """The output columns a head adds after the input columns (``error`` last): its
    ``prediction.output_columns`` (explorer.core.specs.heads)."""
    return head.prediction.output_columns(label_names)


def _pick(columns: list[str], wanted) -> list[str]:
    """Resolve names or 1-based positions against the header; PredictDataError naming what is there."""
    out = []
    for w in wanted:
        w = str(w).strip()
        if w in columns:
            out.append(w)
        elif w.isdigit() and 1 <= int(w) <= len(columns):
            out.append(columns[int(w) - 1])
        else:
            raise PredictDataError(f"no column {w!r} in the file; its columns are: {', '.join(columns)}")
    return out


def resolve_text_columns(info: TableInfo, facts: CheckpointFacts, text_columns=None) -> list[str]:
    """The input columns the model reads: explicit ``text_columns`` (names or 1-based positions), else the
    run's ``text_columns`` (in another case too: "Sentence" for "sentence"), else the usual names
    (core.data.columns_guess.text_columns_for: sentence / text / Tweet ..., the GLUE pairs); SWAG's sent1, sent2,
    ending0..3 and QA's question, context: the head's ``prediction.text_columns``."""
    cols = info.columns
    if text_columns:
        return _pick(cols, text_columns)
    if facts.spec.prediction.text_columns:
        return _pick(cols, list(facts.spec.prediction.text_columns))
    run_cols = facts.run_config.get("text_columns")
    if run_cols:
        try:
            return _pick(cols, run_cols)   # names or the positions of a file without a header
        except PredictDataError:
            pass
    pair = bool(getattr(find_task_facts(str(facts.run_config.get("task") or "")), "pair", False))
    found = text_columns_for(cols, run_cols or (), pair)   # the run's names in another case, else the usual ones
    if found:
        return list(found)
    raise PredictDataError(f"{info.path}: which column holds the text? None of the usual names is there "
                           f"(columns: {', '.join(cols)}); pass --text-columns NAME (or two for pairs)")


def rows_in_file(path: str | Path, encoding: str = "auto", no_header: bool = False) -> int | None:
    """The rows predict will read from a table file, for the progress bar's total: the same reader
    (reading.iter_rows) counts them, so the total is what the bar ends at (line ends minus a header gave 4 for a
    5-line .txt, which has no header, and counted a quoted text's line breaks and blank lines as rows). An .xlsx
    counts its sheet's dimension (read-only, fast). None when the file cannot be read."""
    p = Path(path)
    try:
        if p.suffix.lower() == ".xlsx":
            import openpyxl

            book = openpyxl.load_workbook(p, read_only=True)
            try:
                n = book.worksheets[0].max_row
            finally:
                book.close()
            return max(0, (n or 1) - (0 if no_header else 1))
        _info, rows = iter_rows(p, encoding, no_header=no_header)
        return sum(1 for _ in rows)
    except (OSError, UserError, ValueError):
        return None


def _is_squad_json(path: Path) -> bool:
    if path.suffix.lower() != ".json":
        return False
    from explorer.core.data.sniff import sniff_data_file

    try:
        return sniff_data_file(path).kind == "squad_json"
    except OSError:
        return False


def _squad_rows(path: Path, start: int) -> tuple[TableInfo, Iterator[Row], list[str]]:
    from explorer.core.data.squad import load_squad

    ds, report = load_squad(str(path), strict=False)
    info = TableInfo(str(path), "squad_json", ["id", "title", "question", "context", "answers"], "utf-8")
    notes = [report.summary()]

    def rows():
        for i in range(start, len(ds)):
            r = ds[i]
            yield Row(i, 0, {"id": r["id"], "title": r["title"], "question": r["question"], "context": r["context"],
                             "answers": list(r["answers"]["text"])})
    return info, rows(), notes


BATCH_PROGRESS_SECONDS = 1.0   # between progress reports inside a chunk (after the first batch, always reported)


class _RowCount:
    """The rows of a data file, counted in a daemon thread (rows_in_file / len_squad) so a big file's count
    never holds up the model load or the first batch; ``total`` is None until it is known (or when it cannot
    be)."""

    def __init__(self, path: Path, squad: bool, encoding: str = "auto", no_header: bool = False):
        import threading

        self.total: int | None = None
        self._thread = threading.Thread(target=self._count, args=(path, squad, encoding, no_header),
                                        name="predict-count", daemon=True)
        self._thread.start()

    def _count(self, path: Path, squad: bool, encoding: str, no_header: bool) -> None:
        self.total = len_squad(path) if squad else rows_in_file(path, encoding, no_header)


FIRST_CHUNK_ROWS = 128   # the first chunk is small: the bar moves and an early Ctrl-C keeps rows within seconds


def _chunks(rows: Iterator[Row], size: int, first: int = FIRST_CHUNK_ROWS) -> Iterator[list[Row]]:
    """``rows`` in lists of ``size``, the first of at most ``first`` (a 2,048-row first chunk shows nothing for
    over a minute on a CPU, and a Ctrl-C in that time keeps no row)."""
    chunk: list[Row] = []
    limit = min(size, first) if first > 0 else size
    for r in rows:
        chunk.append(r)
        if len(chunk) >= limit:
            yield chunk
            chunk, limit = [], size
    if chunk:
        yield chunk


def _finite(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def softmax_rows(logits, names: list[str], temperature: float = 1.0) -> list[dict]:
    """A classifier's prediction cells of (n, K) ``logits``: ``p_<name>`` (softmax of logits / ``temperature``),
    ``predicted_label`` (the argmax) and ``margin`` (top probability - second)."""
    z = np.asarray(logits, dtype=np.float64) / temperature   # temperature scaling (core/metrics/calibration.py)
    e = np.exp(z - z.max(axis=1, keepdims=True))           # softmax as classify.softmax_loss, all rows at once
    p = e / e.sum(axis=1, keepdims=True)
    top = np.sort(p, axis=1)[:, ::-1]
    margin = top[:, 0] - (top[:, 1] if p.shape[1] > 1 else 0.0)
    best = np.argmax(z, axis=1)
    cols = [f"p_{n}" for n in names]
    res = []
    for i in range(len(z)):
        d = dict(zip(cols, p[i].tolist()))
        d["predicted_label"] = names[int(best[i])]
        d["margin"] = float(margin[i])
        res.append(d)
    return res


class _Runner:
    """The model side of predict_file: one method per kind of head (:meth:`forward_of`), each chunk -> list of
    prediction dicts."""

    def __init__(self, loaded, facts: CheckpointFacts, *, max_seq_length: int, batch_size: int, tau: float,
                 doc_stride: int, max_query_length: int, n_best_size: int, max_answer_length: int,
                 bf16: bool = False, decode_rule: str = "passage"):
        self.loaded, self.facts = loaded, facts
        self.model, self.tok = loaded.model, loaded.tokenizer
        self.max_seq_length, self.batch_size, self.tau = max_seq_length, batch_size, tau
        self.doc_stride, self.max_query_length = doc_stride, max_query_length
        self.n_best_size, self.max_answer_length = n_best_size, max_answer_length
        self.decode_rule = decode_rule   # QA: explorer.core.qa.decode_rules
        self.bf16 = bf16
        self.temperature = 1.0   # classification: softmax(z / T), T from the run's calibration.json
        self.pad_id = self.tok.pad_token_id if self.tok.pad_token_id is not None else 0
        self.device = next(self.model.parameters()).device
        self.rows_done = 0        # rows of the current chunk through the model (the engine resets it per chunk)
        self.on_batch: Callable[[], None] | None = None   # called after every batch (the engine's progress)
        self._encoded: dict[tuple, dict] = {}   # the chunk's texts encoded for its sort (lengths_of)

    def forward_of(self, head: HeadSpec) -> Callable[[list[list[str]]], list[dict]]:
        """The method that predicts rows for ``head``, by what it reads and what follows its logits
        (explorer.core.specs.heads): a question and a passage (qa), candidate endings (swag), words (ner), or a
        text or pair with a softmax (classification), a score (regression) or sigmoids (multilabel)."""
        by_inputs = {Inputs.QUESTION_PASSAGE: self.qa, Inputs.CHOICES: self.swag, Inputs.WORDS: self.ner}
        by_scores = {Scores.SOFTMAX: self.classification, Scores.SCORE: self.regression,
                     Scores.SIGMOID: self.multilabel}
        return by_inputs.get(head.inputs) or by_scores[head.scores]

    def lengths_of(self, head: HeadSpec) -> Callable[[list[list[str]]], list[int]] | None:
        """How long each row's model input is, for the sort of a chunk into batches: the tokens of the one
        sequence a text or pair is encoded to (classification, regression, multi-label; the Rust tokenizer takes a
        small share of a forward), or None where a row becomes several sequences (QA windows, SWAG's endings,
        a tagger's words): the rows are then sorted by their characters."""
        if head.inputs in (Inputs.QUESTION_PASSAGE, Inputs.CHOICES, Inputs.WORDS):
            return None

        def lengths(texts: list[list[str]]) -> list[int]:
            enc = self.encode(texts)
            # kept for the chunk's batches (each text tokenized once): row texts -> its encoded row
            self._encoded = {tuple(t): {k: v[i] for k, v in enc.items()} for i, t in enumerate(texts)}
            return [len(ids) for ids in enc["input_ids"]]
        return lengths

    def _encode_once(self, texts: list[list[str]]) -> dict:
        """:meth:`encode` of ``texts``, taken from the chunk's encoding made for the sort when it holds them all."""
        rows = [self._encoded.get(tuple(t)) for t in texts]
        if not texts or any(r is None for r in rows):
            return self.encode(texts)
        return {k: [r[k] for r in rows] for k in rows[0]}

    def _batch_done(self, rows: int = 0) -> None:
        """After a batch: ``rows`` more rows of the chunk done; tells ``on_batch``."""
        self.rows_done += rows
        if self.on_batch is not None:
            self.on_batch()

    def encode(self, texts: list[list[str]]) -> dict:
        """Tokenize as training / Classify do: ``tokenizer(a[, b], truncation=True, max_length=max_seq_length)``.

        A fast tokenizer's Rust backend is called directly (``encode_batch`` with the same truncation:
        longest_first to max_seq_length, special tokens added), which gives the same ids without transformers'
        per-row Python conversion (a third of predict's time around a small model); its truncation and padding
        settings are restored afterwards. Returns lists per row: input_ids, token_type_ids, attention_mask.
        """
        a = [t[0] for t in texts]
        pairs = len(texts[0]) > 1
        backend = getattr(self.tok, "backend_tokenizer", None)
        if backend is None:
            if pairs:
                return self.tok(a, [t[1] for t in texts], truncation=True, max_length=self.max_seq_length)
            return self.tok(a, truncation=True, max_length=self.max_seq_length)
        trunc, pad = backend.truncation, backend.padding
        try:
            backend.enable_truncation(self.max_seq_length, strategy="longest_first")
            backend.no_padding()
            encs = backend.encode_batch(list(zip(a, [t[1] for t in texts])) if pairs else a, add_special_tokens=True)
        finally:
            if trunc is None:
                backend.no_truncation()
            else:
                backend.enable_truncation(**{k: v for k, v in trunc.items() if k in ("max_length", "stride",
                                                                                     "strategy", "direction")})
            if pad is None:
                backend.no_padding()
            else:
                backend.enable_padding(**{k: v for k, v in pad.items() if k in ("direction", "pad_id", "pad_type_id",
                                                                               "pad_token", "length",
                                                                               "pad_to_multiple_of")})
        out = {"input_ids": [e.ids for e in encs], "attention_mask": [e.attention_mask for e in encs]}
        if "token_type_ids" in getattr(self.tok, "model_input_names", ["token_type_ids"]):
            out["token_type_ids"] = [e.type_ids for e in encs]
        return out

    def pad(self, enc: dict, idx: list[int], shape=None):
        """Right-padded int64 tensors for the rows ``idx`` of an encoding (attention_mask 0 on padding)."""
        import torch

        ids = [enc["input_ids"][k] for k in idx]
        width = max(len(x) for x in ids)
        out = {}
        for name, fill in (("input_ids", self.pad_id), ("token_type_ids", 0), ("attention_mask", 0)):
            if name not in enc:
                continue
            arr = np.full((len(idx), width), fill, dtype=np.int64)
            for r, k in enumerate(idx):
                v = enc[name][k]
                arr[r, :len(v)] = v
            t = torch.from_numpy(arr)
            out[name] = (t.view(*shape, width) if shape else t).to(self.device)
        return out

    def forward(self, batch: dict):
        import torch

        if self.bf16:
            with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
                return self.model(**batch).logits.float().cpu().numpy()
        return self.model(**batch).logits.float().cpu().numpy()

    def logits_for(self, texts: list[list[str]]) -> np.ndarray:
        """(n, K) logits of the texts, length-sorted batches, returned in input order."""
        from explorer.core.models.batched_forward import forward_batches

        enc = self._encode_once(texts)
        lengths = [len(x) for x in enc["input_ids"]]
        out = None
        for idx, outputs in forward_batches(self.model, lengths, self.batch_size, lambda idx: self.pad(enc, idx),
                                            bf16=self.bf16):
            logits = outputs.logits.float().cpu().numpy()
            if out is None:
                out = np.zeros((len(texts), logits.shape[-1]), dtype=np.float64)
            out[idx] = logits
            self._batch_done(len(idx))
        return out

    def _rows_of_logits(self, texts, rows_of: Callable[[np.ndarray], list[dict]]) -> list[dict]:
        """``rows_of`` (logits -> prediction dicts) of the texts' logits."""
        return rows_of(self.logits_for(texts))

    def classification(self, texts):
        return self._rows_of_logits(texts, self._softmax_rows)

    def _softmax_rows(self, logits: np.ndarray) -> list[dict]:
        return softmax_rows(logits, self.facts.label_names, self.temperature)

    def regression(self, texts):
        return self._rows_of_logits(texts, lambda z: [{"predicted_score": float(row[0])} for row in z])

    def multilabel(self, texts):
        return self._rows_of_logits(texts, self._sigmoid_rows)

    def _sigmoid_rows(self, logits: np.ndarray) -> list[dict]:
        names, th = self.facts.label_names, self.facts.thresholds
        p = 1.0 / (1.0 + np.exp(-logits))
        res = []
        for row in p:
            d = {"predicted_labels": [n for k, n in enumerate(names) if row[k] >= th[k]]}
            d.update({f"p_{n}": float(row[k]) for k, n in enumerate(names)})
            res.append(d)
        return res

    def ner(self, texts):
        from explorer.core.tagging.forward import tag_texts

        tagged = tag_texts(self.model, self.tok, [t[0] for t in texts], max_seq_length=self.max_seq_length,
                           batch_size=self.batch_size)
        self._batch_done(len(texts))
        return [{"entities": [e.to_dict() for e in r.entities], "words": " ".join(r.words), "tags": " ".join(r.tags)}
                for r in tagged]

    def swag(self, texts):
        from explorer.core.classify.arithmetic import softmax_loss
        from explorer.core.qa.inference import batch_order

        n = self.facts.spec.prediction.choices     # candidates per row (SWAG: 4)
        pairs = [[t[0], f"{t[1]} {t[2 + k]}".strip()] for t in texts for k in range(n)]
        enc = self.encode(pairs)
        lengths = [max(len(enc["input_ids"][n * i + k]) for k in range(n)) for i in range(len(texts))]
        scores = np.zeros((len(texts), n))
        with inference(self.model):   # eval mode, inference_mode, the caller's mode restored
            for idx in batch_order(lengths, self.batch_size):
                flat = [n * i + k for i in idx for k in range(n)]
                scores[idx] = self.forward(self.pad(enc, flat, shape=(len(idx), n))).reshape(len(idx), n)
                self._batch_done(len(idx))
        res = []
        for row in scores:
            p, _ = softmax_loss(row)
            d = {"predicted_ending": int(np.argmax(row))}
            d.update({f"p_ending{k}": float(p[k]) for k in range(n)})
            res.append(d)
        return res

    def qa(self, texts):
        from explorer.core.qa.decode_rules import decode_predictions_by, other_rule
        from explorer.core.qa.inference import predict_squad

        examples = [{"id": str(i), "question": q, "context": c} for i, (q, c) in enumerate(texts)]

        before = self.rows_done

        def report(done, total):   # QA windows of these rows: the rows' share of them
            if total:
                self.rows_done = before + len(texts) * int(done) // int(total)
                self._batch_done()
        features, start, end = predict_squad(self.loaded, examples, max_seq_length=self.max_seq_length,
                                             doc_stride=self.doc_stride, max_query_length=self.max_query_length,
                                             batch_size=self.batch_size, bf16=self.bf16, progress=report)
        settings = {"n_best_size": self.n_best_size, "max_answer_length": self.max_answer_length}
        decodings = decode_predictions_by(self.decode_rule, examples, features, start, end, **settings)
        others = decode_predictions_by(other_rule(self.decode_rule), examples, features, start, end, **settings)
        res = []
        for ex in examples:
            dec = decodings.get(ex["id"])
            if dec is None:
                res.append({"error": "no window for this question (empty context?)"})
                continue
            best, answers = self._qa_decision(dec)
            other_best, other_answers = self._qa_decision(others[ex["id"]])
            other_text = other_best.text if other_answers else ""
            text = best.text if answers else ""
            res.append({"answer": text,
                        "answer_start": best.start_char if answers else None,
                        "answer_end": best.end_char if answers else None,
                        "score_diff": _finite(dec.score_diff), "null_score": _finite(dec.null_score),
                        "decision": "answer" if answers else "abstain",
                        "window": 1 + (best.window_index if best is not None else dec.null_window),  # from 1
                        "other_rule_answer": _other_answer(text, other_text, other_answers)})
        return res

    def _qa_decision(self, dec):
        """(best span or None, whether it answers): a v1.1 checkpoint always answers, else score_diff > τ."""
        best = dec.nbest[0] if dec.nbest else None
        return best, best is not None and (not self.facts.abstains or dec.score_diff > self.tau)


NO_ANSWER = "(no answer)"   # other_rule_answer when the other decode rule abstains where this one answers


def _other_answer(text: str, other_text: str, other_answers: bool) -> str:
    """The other_rule_answer cell: "" when both decode rules give the same answer (edge white space aside),
    else the other rule's answer, NO_ANSWER where it abstains."""
    if other_text.strip() == text.strip():
        return ""
    return other_text if other_answers else NO_ANSWER


def _row_texts(row: Row, text_columns: list[str], head: HeadSpec) -> tuple[list[str] | None, str]:
    """The texts the model reads from a row, or (None, error); the head's ``prediction.optional_texts`` may be
    empty."""
    if row.error:
        return None, row.error
    texts = []
    for c in text_columns:
        if c not in row.values:
            return None, f"line {row.line}: no {c!r} value"
        texts.append(text_of(row.values[c]))
    required = [c for k, c in enumerate(text_columns) if k not in head.prediction.optional_texts]   # SWAG's sent2
    empty = [c for c, t in zip(text_columns, texts) if c in required and not t.strip()]
    if empty:
        where = f"line {row.line}" if row.line else f"row {row.index + 1}"
        return None, f"{where}: empty {empty[0]!r}"
    return texts, ""


def _load(model: str, facts: CheckpointFacts, summary: PredictSummary, say: Callable[[str], None],
          tokenizer: str | None = None, device: str = "cpu", bf16: bool = False):
    """Load ``model`` with its task head for predict_file on ``device`` (explorer.core.devices), saying so first,
    and where its tokenizer comes from when not from the checkpoint; the seconds go into the summary."""
    from explorer.core.devices import place
    from explorer.core.models.loading import load_model

    say(f"loading model {model}…")
    t_load = time.perf_counter()
    loaded = load_model(model, task=facts.head, tokenizer=tokenizer)
    where = place(loaded.model, device, bf16=bf16)
    summary.load_seconds = time.perf_counter() - t_load
    if loaded.tokenizer_note:
        say(f"note: {loaded.tokenizer_note}")
    if where != "cpu":
        say(f"running on {where}")
    return loaded


def _loaded_runner(model: str, loaded, facts: CheckpointFacts, summary, say, tokenizer, device: str, *,
                   bf16: bool, **settings):
    """The runner that predicts with ``model`` (``loaded``, else loaded here on ``device``): its tokenizer's and its
    word rule's notes go to ``summary``; ``settings`` are _make_runner's (max_seq_length, batch_size, …)."""
    loaded = loaded if loaded is not None else _load(model, facts, summary, say, tokenizer, device, bf16)
    if getattr(loaded, "tokenizer_note", ""):
        summary.notes.append(loaded.tokenizer_note)
    runner = _make_runner(model, loaded, facts, summary, bf16=bf16, **settings)
    if facts.spec.inputs is Inputs.WORDS:   # which words the tags belong to
        summary.notes.append(_word_rule_note(loaded))
    return runner


def predict_file(model: str, data: str, out: str, *, loaded=None, text_columns=None, encoding: str = "auto",
                 no_header: bool | None = None,
                 tau: float | None = None, batch_size: int = 32, chunk_rows: int = 2048, resume: bool = False,
                 max_seq_length: int | None = None, doc_stride: int | None = None,
                 max_query_length: int | None = None, n_best_size: int = 20, max_answer_length: int = 30,
                 bf16: bool = False, progress: Callable[[int, int | None], None] | None = None,
                 cancelled: Callable[[], bool] | None = None, facts: CheckpointFacts | None = None,
                 calibration: bool = True, status: Callable[[str], None] | None = None,
                 tokenizer: str | None = None, device: str = "cpu",
                 saved: Callable[[int], None] | None = None, decode_rule: str = "passage") -> PredictSummary:
    """Predict every row of ``data`` with checkpoint ``model`` and write ``out`` (see the module docstring).

    Args:
        model: checkpoint folder / hub id (its config.json says the task; :mod:`explorer.core.predict.facts`).
        data: .csv / .tsv / .txt / .jsonl / .xlsx, or (QA) a SQuAD JSON.
        out: .csv / .tsv / .jsonl / .xlsx by suffix.
        loaded: an already loaded LoadedModel of ``model`` (the inspector child, tests); else loaded here.
        text_columns: names or 1-based positions of the text column(s) (QA: question, context; SWAG: sent1,
            sent2, ending0..3); default: the run's or the usual names.
        encoding: "auto" or a codec (reading.iter_rows).
        no_header: the first row of a CSV / TSV / xlsx file is data (columns "1", "2", ...); None = as the run
            read its training data (its config's ``no_header``: STS-B's header-less tab-separated .csv predicts
            as it trained), else False.
        tau: QA decision threshold (score_diff units); None = the τ saved with the checkpoint, else 0.
        batch_size: sequences (QA: windows; SWAG: items) per forward pass. chunk_rows: rows read, run and
            written together (memory scales with it, not with the file).
        resume: keep the rows already in ``out`` and continue after them.
        max_seq_length, doc_stride, max_query_length: default: the run's settings, else the task's defaults.
        progress: progress(rows_done, rows_total or None): once before the first batch, after the first batch,
            then after a batch at most every BATCH_PROGRESS_SECONDS, and after every chunk (rows_done: rows
            through the model, resumed rows included; rows_total: None until the file's rows are counted, which
            runs in a thread beside the model load and the first batches, never before them).
        saved: saved(rows_in_out) whenever the rows in ``out`` change: at the start (the rows already there on
            resume), after every chunk written and after a stop. The rows of a chunk reach the file with it,
            or at a stop: ``progress``'s count runs ahead of this one inside a chunk.
        status: status(line) before each slow step that has no rows yet ("reading FILE…", "loading model
            MODEL…"), so a terminal shows something at once.
        cancelled: polled before every batch; True stops with :class:`explorer.core.errors.Cancelled`: the rows
            run up to the first row not run are written, in input order, the rows run after it kept in OUT.ahead.jsonl
            for ``resume`` (the exception's ``rows_written`` counts the rows in ``out``, its ``rows_ahead`` those
            kept beside it; a last progress report gives their sum, so a bar ends at the rows kept, never behind
            the rows it counted).
        calibration: classification: divide the logits by the temperature saved with the checkpoint's run
            (``<run>/calibration.json``, core/metrics/calibration.py) before the softmax; False (``--no-calibration``)
            or no such file: the raw softmax. The predicted label is the same either way.
        tokenizer: where to read the tokenizer from (``--tokenizer``); default: the checkpoint's own, else its
            parent's or its base model's (core.models.tokenizer_source.find_tokenizer); a note says which when it is not
            the checkpoint's own.
        decode_rule: QA: how spans are searched, "passage" (this app's rule) or "run_qa" (transformers'
            run_qa.py; explorer.core.qa.decode_rules); the ``other_rule_answer`` column holds the other rule's
            answer where it differs ("(no answer)" where it abstains).
        device: where a model loaded here runs ("cpu", "auto", "cuda", "cuda:N"; explorer.core.devices); a
            ``loaded`` model stays where it is.

    Returns:
        PredictSummary.

    Raises:
        PredictDataError (a UserError): unreadable file, unknown suffix, no text column, ``out`` holding other
            columns on resume. ModelSourceError: not a checkpoint with a task head. Cancelled.
    """
    t0 = time.perf_counter()
    say = status or (lambda line: None)
    facts = facts or checkpoint_facts(model)
    out_kind(out)
    data_path = Path(data)
    squad = facts.spec.inputs is Inputs.QUESTION_PASSAGE and _is_squad_json(data_path)
    say(f"reading {data}…")
    counter, (info, rows, cols, pred_cols, summary, done), headerless = _open_rows(
        model, data, out, facts, squad, text_columns, encoding, resume, tau, no_header)
    if not squad:   # said before the model loads: a stop (or a resume) must not be the first to hear of it
        _say_training_rows(summary, facts, model, data_path, encoding, headerless, cols, say)
    runner = _loaded_runner(model, loaded, facts, summary, say, tokenizer, device, max_seq_length=max_seq_length,
                            batch_size=batch_size, doc_stride=doc_stride, max_query_length=max_query_length,
                            n_best_size=n_best_size, max_answer_length=max_answer_length, bf16=bf16,
                            calibration=calibration, decode_rule=decode_rule)
    method = runner.forward_of(facts.spec)
    writer = RowWriter(out, summary.columns, append=resume and done > 0)
    if not resume:
        save_ahead(out, {})   # a new OUT: what an earlier stop kept beside the old one no longer belongs to it
    reporter = _BatchReporter(progress, counter, lambda: done + summary.new_rows + runner.rows_done)
    runner.on_batch = reporter.on_batch
    report = reporter.report
    try:
        _write_chunks(_chunks(rows, chunk_rows), runner, method, writer, summary, report,
                      saved or (lambda rows: None), done, (cols, facts.spec, info.columns, pred_cols),
                      _Windows(batch_size, cancelled, out, load_ahead(out, done) if resume else {},
                               runner.lengths_of(facts.spec)))
        reporter.finish(summary.rows)
        save_ahead(out, {})   # every row is in OUT: nothing is kept ahead of it
        if info.skipped_lines:   # the file is read to its end: every empty line is known
            summary.notes.append(skipped_note(info.skipped_lines))
    finally:
        writer.close()
        summary.seconds = time.perf_counter() - t0
    finish(out)
    summary.seconds = time.perf_counter() - t0
    return summary


def _open_rows(model: str, data: str, out: str, facts: CheckpointFacts, squad: bool, text_columns, encoding: str,
               resume: bool, tau: float | None, no_header: bool | None):
    """predict_file's input: (the row counter running beside the model, :func:`_plan_rows`'s tuple, whether the
    file is read without a header row). The file is read by the one header rule the Predict dialog reads by
    (reading.reads_without_header), said in a note when it follows the run's own."""
    data_path = Path(data)
    headerless = reads_without_header(facts.run_config, no_header, data_path, encoding)
    counter = _RowCount(data_path, squad, encoding, headerless)
    info, rows, cols, pred_cols, summary, done = _plan_rows(model, data, out, facts, squad, text_columns, encoding,
                                                            resume, tau, headerless)
    if no_header is None and headerless:
        summary.notes.append("read without a header row, as the run read its data (columns 1, 2, ...; --header "
                             "if this file has one)")
    return counter, (info, rows, cols, pred_cols, summary, done), headerless


def _say_training_rows(summary: PredictSummary, facts: CheckpointFacts, model: str, data_path: Path, encoding: str,
                       headerless: bool, cols: list[str], say: Callable[[str], None]) -> None:
    """A note, said at once (``say``) and kept in ``summary.notes``, when rows of the file are rows the checkpoint's
    run trained on (explorer.core.predict.seen, the check the Predictions page makes): their predictions are no
    fair test. The whole file is counted, the rows a resume skips included, so a stopped and resumed call says
    the same sentence. Nothing when none are, or the run's training file is gone (then the file is not read)."""
    from explorer.core.runs.layout import run_dir_of

    keys = training_keys(facts.run_config, run_dir_of(model))
    if not keys:
        return
    row_keys: list[bytes] = []
    _info, rows = iter_rows(data_path, encoding, start=0, no_header=headerless)
    for _row in keyed_rows(rows, cols, row_keys):
        pass
    seen = training_rows(row_keys, keys)
    if seen is not None:
        summary.training_rows = seen.rows
        summary.notes.append(seen.sentence())
        say(f"note: {seen.sentence()}")


def _word_rule_note(loaded) -> str:
    """The note naming the word-splitting rule a tagger's raw text is split by (its training words' rule)."""
    from explorer.core.data.words import recorded_rule, rule_note, rule_of

    return rule_note(rule_of(loaded.model), bool(recorded_rule(loaded.model)))


class _BatchReporter:
    """predict_file's progress: ``report(rows_done)`` with the counted total once known; ``on_batch`` reports
    the first batch and then at most every BATCH_PROGRESS_SECONDS (``rows_now()``: rows through the model)."""

    def __init__(self, progress, counter, rows_now: Callable[[], int]):
        self.progress, self.counter, self.rows_now = progress, counter, rows_now
        self.at: float | None = None   # monotonic time of the last batch report; None before the first batch
        self.last: tuple | None = None   # the last (rows_done, total) reported

    def report(self, rows_done: int) -> None:
        if self.progress is not None:
            total = self.counter.total
            self.last = (rows_done, max(total, rows_done) if total is not None else None)
            self.progress(*self.last)

    def finish(self, rows: int) -> None:
        """The file is read to its end: its rows are ``rows``, whether or not the counting thread has said so yet
        (a small file can be predicted before it is counted); a last report gives that total, unless the last one
        already did."""
        if self.counter.total is None:
            self.counter.total = rows
        if self.progress is not None and self.last != (rows, max(self.counter.total, rows)):
            self.report(rows)

    def on_batch(self) -> None:
        now = time.monotonic()
        if self.at is None or now - self.at >= BATCH_PROGRESS_SECONDS:
            self.at = now
            self.report(self.rows_now())


class _Windows:
    """The stop rule of every head: a chunk's rows run in batches of ``rows`` rows (the chunk sorted by the length
    of its texts, ``lengths``: the runner's lengths_of, so each batch pads little), ``cancelled()`` asked before
    each batch. ``ahead``: the predictions a stop kept beyond the rows written (writing.load_ahead; data row index
    -> prediction cells), used instead of running those rows again; ``out``: the output file they are kept beside."""

    def __init__(self, rows: int, cancelled: Callable[[], bool] | None, out: str | Path | None = None,
                 ahead: dict[int, dict] | None = None,
                 lengths: Callable[[list[list[str]]], list[int]] | None = None):
        self.rows, self.cancelled = max(1, int(rows)), cancelled
        self.out, self.ahead = out, ahead if ahead is not None else {}
        self.kept_rows = frozenset(self.ahead)   # the data row indices an earlier call kept ahead, as read
        self.lengths = lengths or (lambda texts: [sum(len(s) for s in t) for t in texts])   # tokens, or characters

    def stopped(self) -> bool:
        return self.cancelled is not None and bool(self.cancelled())

    def keep(self, written: int, more: dict[int, dict]) -> int:
        """At a stop, with ``written`` rows in OUT: keep the predictions of the rows after them (those kept before
        and ``more``) in OUT.ahead.jsonl for ``--resume``. Returns how many are kept there."""
        from explorer.core.predict.writing import save_ahead

        kept = {i: p for i, p in {**self.ahead, **more}.items() if i >= written}
        if self.out is not None:
            save_ahead(self.out, kept)
        return len(kept)


def _write_chunks(chunks, runner, method, writer, summary: PredictSummary, report, kept, written: int,
                  layout: tuple, windows: _Windows) -> int:
    """predict_file's loop: each chunk through the model and into ``writer``; ``kept`` / ``report`` told the rows in
    the file after each (and at the start: ``written`` rows already there on resume). ``layout``: (cols, head,
    input columns, prediction columns) for _predict_chunk; ``windows``: its stop rule. Returns the rows in the file;
    ``summary.rows`` holds them too, also when it raises. Raises Cancelled with ``rows_written``: the file holds the
    whole chunks and the chunk under way's rows up to its first row not run, and ``rows_ahead``: the rows run after
    that, kept in OUT.ahead.jsonl (``windows.keep``); the last report is their sum (every row run, so a bar's last
    count at Ctrl-C never jumps back)."""
    cols, head, columns, pred_cols = layout
    try:
        kept(written)
        report(written)
        for chunk in chunks:
            runner.rows_done = 0
            out_rows = _predict_chunk(chunk, cols, head, method, columns, pred_cols, windows)
            summary.errors += sum(bool(r["error"]) for r in out_rows)
            writer.write(out_rows)
            written += len(chunk)
            summary.new_rows += len(chunk)
            summary.kept_ahead += sum(row.index in windows.kept_rows for row in chunk)
            kept(written)
            report(written)
    except Cancelled as exc:
        done = getattr(exc, "rows_done", None) or []   # the chunk's first rows, all computed: kept, not run again
        if done:
            summary.errors += sum(bool(r["error"]) for r in done)
            writer.write(done)
            written += len(done)
            summary.new_rows += len(done)
            summary.kept_ahead += sum(row.index in windows.kept_rows for row in chunk[:len(done)])
            kept(written)
        exc.rows_written = written
        exc.rows_ahead = windows.keep(written, getattr(exc, "ahead", None) or {})
        try:
            report(written + exc.rows_ahead)
        except Cancelled:
            pass
        raise
    finally:
        summary.rows = written
    return written


def _plan_rows(model: str, data: str, out: str, facts: CheckpointFacts, squad: bool, text_columns, encoding: str,
               resume: bool, tau: float | None, no_header: bool = False):
    """The rows to predict (after those already in ``out`` on resume), their text columns, the output columns
    and the PredictSummary to fill: (info, rows, cols, pred_cols, summary, done). Raises PredictDataError."""
    data_path = Path(data)
    done, old_header = count_rows(out) if resume else (0, [])
    if squad:
        info, rows, data_notes = _squad_rows(data_path, done)
    else:
        info, rows = iter_rows(data_path, encoding, start=done, no_header=no_header)
        data_notes = [info.note] if info.note else []
    cols = resolve_text_columns(info, facts, text_columns)
    pred_cols = prediction_columns(facts.spec, facts.label_names)
    columns = list(dict.fromkeys([c for c in info.columns if c not in pred_cols] + pred_cols))
    if resume and done and old_header and out_kind(out) != "jsonl" and old_header != columns:
        raise PredictDataError(f"{out} holds other columns than this run writes ({', '.join(old_header[:6])} ...); "
                               "resume with the same model and data, or choose another output file")
    summary = PredictSummary(str(out), str(data), str(model), facts.kind, columns=columns,
                             input_columns=list(info.columns), text_columns=cols, label_names=facts.label_names,
                             resumed_from=done, notes=list(facts.notes) + data_notes)
    if facts.spec.prediction.answers_with_tau:
        summary.tau = float(tau) if tau is not None else (facts.tau if facts.tau is not None else 0.0)
        if not facts.abstains:
            summary.notes.append("SQuAD v1.1 checkpoint: every question is answered (no τ)")
    return info, rows, cols, pred_cols, summary, done


def _make_runner(model: str, loaded, facts: CheckpointFacts, summary: PredictSummary, *, max_seq_length, batch_size,
                 doc_stride, max_query_length, n_best_size, max_answer_length, bf16,
                 calibration: bool, decode_rule: str = "passage") -> "_Runner":
    """The batched forward of ``facts.kind`` with its settings (explicit > the run's window settings > the
    task's defaults) and, for classification, the run's saved temperature (said in ``summary.notes``)."""
    from explorer.core.models.checkpoint_windows import window_settings_for_checkpoint

    window = window_settings_for_checkpoint(model) if facts.spec.inputs is Inputs.QUESTION_PASSAGE else None
    msl = max_seq_length or facts.max_seq_length or facts.spec.default_max_seq_length
    runner = _Runner(loaded, facts, max_seq_length=msl, batch_size=batch_size, tau=summary.tau or 0.0,
                     doc_stride=doc_stride or (window.doc_stride if window else 128),
                     max_query_length=max_query_length or (window.max_query_length if window else 64),
                     n_best_size=n_best_size, max_answer_length=max_answer_length, bf16=bf16,
                     decode_rule=decode_rule)
    if calibration and facts.spec.prediction.calibrated:
        from explorer.core.metrics.calibration import load_temperature

        try:
            t = load_temperature(model)
        except ValueError as exc:
            t = None
            summary.notes.append(f"calibration ignored: {exc}")
        if t is not None:
            runner.temperature = t
            summary.notes.append(f"probabilities temperature-scaled with T = {t:.3f} (the run's calibration.json; "
                                 "--no-calibration for the raw softmax)")
    return runner


def _predict_chunk(chunk, cols, head: HeadSpec, method, input_columns, pred_cols,
                   windows: _Windows | None = None) -> list[dict]:
    """One chunk of rows through ``method`` (the runner's forward for ``head``): every row out, in order, its input
    columns, the prediction columns (None where a row could not be used) and ``error``. With ``windows``, the rows
    run in batches of ``windows.rows`` sorted by the length of their texts, longest first, over the whole chunk (each
    batch padded to about its own rows' length, as the dev scoring's), the stop asked before each batch, and the
    rows ``windows.ahead`` holds take their kept predictions instead of running.

    Raises Cancelled with ``rows_done``: the output rows of the chunk before the first row not run, which the engine
    writes, and ``ahead``: the predictions of the rows run after it (data row index -> prediction cells), which it
    keeps for ``--resume``."""
    texts, where, results = [], [], [dict() for _ in chunk]
    ran = [False] * len(chunk)   # the rows whose output is known: predicted, kept ahead, or not usable
    ahead = windows.ahead if windows is not None else {}
    for j, row in enumerate(chunk):
        if row.index in ahead:
            results[j].update(ahead.pop(row.index))
            ran[j] = True
            continue
        t, err = _row_texts(row, cols, head)
        if t is None:
            results[j]["error"], ran[j] = err, True
        else:
            texts.append(t)
            where.append(j)
    if windows is None:
        batches = [list(range(len(texts)))] if texts else []
    else:
        lengths = windows.lengths(texts) if texts else []
        longest_first = sorted(range(len(texts)), key=lambda k: -lengths[k])
        batches = [longest_first[i:i + windows.rows] for i in range(0, len(texts), windows.rows)]
    for batch in batches:
        if windows is not None and windows.stopped():
            raise _stopped_in_chunk(chunk, results, ran, input_columns, pred_cols)
        for k, pred in zip(batch, method([texts[k] for k in batch])):
            results[where[k]].update(pred)
            ran[where[k]] = True
    return _out_rows(chunk, results, input_columns, pred_cols)


def _stopped_in_chunk(chunk, results, ran, input_columns, pred_cols) -> Cancelled:
    """The Cancelled of a stop inside a chunk: ``rows_done``, the output rows before the first row not run (input
    order), and ``ahead``, the predictions of the rows run after it, by data row index."""
    stop = ran.index(False) if False in ran else len(chunk)
    exc = Cancelled()
    exc.rows_done = _out_rows(chunk[:stop], results[:stop], input_columns, pred_cols)
    exc.ahead = {chunk[j].index: results[j] for j in range(stop, len(chunk)) if ran[j]}
    return exc


def _out_rows(chunk, results, input_columns, pred_cols) -> list[dict]:
    """The output rows: each input row's input columns, the prediction columns (None where not predicted) and
    ``error``."""
    out_rows = []
    for row, pred in zip(chunk, results):
        r = {c: row.values.get(c, "") for c in input_columns}
        r.update({c: None for c in pred_cols})
        r.update(pred)
        r["error"] = pred.get("error", "")
        out_rows.append(r)
    return out_rows


def len_squad(path: Path) -> int | None:
    """Questions in a SQuAD JSON (for the ETA)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return sum(len(p.get("qas", [])) for a in data.get("data", []) for p in a.get("paragraphs", []))
    except (OSError, ValueError, AttributeError):
        return None
