"""Embeddings: one point per occurrence of a word in context, or one point per text, and their 2-D maps.

The BERT-paper picture ("word vectors: one point per vocabulary item" beside "BERT: one point per instance
of a word in context") made computable:

* :func:`read_corpus` reads texts from a text file (one text per line), a column of a table (CSV / TSV /
  JSONL / xlsx through ``core.data.table``), the passages of an official SQuAD JSON file, or the training
  data of a run folder; the table's other columns come along as colour columns.
* :func:`find_occurrences` finds a word or phrase as a whole word (case option), capped with the total.
* :func:`embed_occurrences` embeds each occurrence at every layer: the mean of the hidden states of the
  word's pieces (located with the fast tokenizer's offset mapping); layer 0 is the embedding layer's
  output (``hidden_states[0]`` of transformers), layer L the L-th encoder layer.
* :func:`embed_sentences` gives one vector per text: [CLS] (``cls``), the pooler output (``pooler``) or the
  attention-masked mean of all tokens (``mean``).
* :func:`static_embedding` is the word's row(s) of the input embedding matrix (one point per vocabulary
  item; the mean of its pieces' rows).
* :func:`project` (PCA, t-SNE, UMAP when ``umap-learn`` is installed), :func:`shared_pca` (one projection
  fitted on all layers stacked), :func:`procrustes_align` (orthogonal Procrustes, scipy), :func:`kmeans`
  and :func:`nearest_neighbours` (cosine, in the original space).
* :func:`write_projector` / :func:`write_coordinates`: the TensorBoard projector files (``vectors.tsv``,
  ``metadata.tsv``, ``projector_config.pbtxt``) and a CSV of the 2-D coordinates.

Never imports Qt. Torch is imported inside the functions that run a model.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from explorer.core.errors import Cancelled, EmbeddingError

Progress = Callable[[int, int], None]
POOLINGS = ("cls", "pooler", "mean")
PROJECTIONS = ("pca", "tsne", "umap")
PROJECTION_LABELS = {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}
PREDICTED = "predicted"   # the colour column of a fine-tuned classifier's predicted labels
TEXT_SUFFIXES = (".txt", ".text")
TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".xlsx")


# ------------------------------------------------------------------------------------------------ corpus
@dataclass
class Corpus:
    """Texts to embed, read from one source.

    Attributes:
        source: the file or run folder as given.
        kind: "text" (one text per line), "table", "squad" (passages), "conll" (sentences, words joined).
        texts: the texts, in file order (blank ones left out).
        lines: where each text is in the file (line or row number, 1-based; SQuAD: the paragraph's number).
        columns: colour columns, name -> one value per text (a table's other columns, a SQuAD passage's
            title).
        notes: plain sentences on what reading found.
    """

    source: str
    kind: str
    texts: list[str]
    lines: list[int]
    columns: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def umap_available() -> bool:
    """True when ``umap-learn`` can be imported (the optional extra ``bert-explorer[umap]``)."""
    import importlib.util

    return importlib.util.find_spec("umap") is not None


def available_projections() -> tuple[str, ...]:
    """The projections this installation can run: pca, tsne and, with umap-learn, umap."""
    return PROJECTIONS if umap_available() else PROJECTIONS[:2]


def read_corpus(source: str | Path, *, text_column: str = "", max_texts: int = 0) -> Corpus:
    """Read texts from ``source``.

    Args:
        source: a ``.txt`` file (one text per line), a table (``.csv`` / ``.tsv`` / ``.jsonl`` / ``.xlsx``),
            an official SQuAD ``.json`` file (its passages, each once, with the article title as a colour
            column), or a run folder (its config.json's training data, read as its task reads it).
        text_column: for a table, the text column by name or 1-based position; empty = the first column
            whose name looks like text (sentence, text, ...), else the first column.
        max_texts: keep the first N texts (0 = all).

    Raises:
        EmbeddingError: missing file, unknown kind, no texts; ClassificationDataError (a UserError) for an
            unknown column; SquadDataError for a broken SQuAD file.
    """
    path = Path(source)
    if path.is_dir():
        return _run_corpus(path, text_column, max_texts)
    if not path.is_file():
        raise EmbeddingError(f"{source}: no such file or folder")
    suffix = path.suffix.lower()
    if suffix in TABLE_SUFFIXES:
        corpus = _table_corpus(path, text_column, max_texts)
    elif suffix == ".json":
        corpus = _squad_corpus(path, max_texts)
    elif suffix in TEXT_SUFFIXES or suffix == "":
        corpus = _text_corpus(path, max_texts)
    else:
        raise EmbeddingError(f"{source}: cannot read {suffix} files as a corpus; use a text file (one text per "
                             "line), a CSV / TSV / JSONL / xlsx table, a SQuAD .json file or a run folder")
    if not corpus.texts:
        raise EmbeddingError(f"{source}: no texts in the file")
    return corpus


def _text_corpus(path: Path, max_texts: int) -> Corpus:
    from explorer.core.data.table import decode_bytes

    text, encoding, notes = decode_bytes(path.read_bytes(), str(path))
    texts, lines = [], []
    for k, line in enumerate(text.splitlines(), 1):
        if line.strip():
            texts.append(line.strip())
            lines.append(k)
            if max_texts and len(texts) >= max_texts:
                break
    return Corpus(str(path), "text", texts, lines, notes=list(notes))


def _table_corpus(path: Path, text_column: str, max_texts: int) -> Corpus:
    from explorer.core.data.table import guess_columns, read_table, resolve_column

    table = read_table(path)
    if text_column:
        col = resolve_column(table, text_column, "text column", "--text-column")
    else:
        guess = guess_columns(table.columns) if table.has_header else None
        names = list(getattr(guess, "text_columns", None) or [])
        col = table.columns.index(names[0]) if names and names[0] in table.columns else 0
    texts, lines, others = [], [], {i: [] for i in range(len(table.columns)) if i != col}
    for line, values in table.rows:
        value = values[col] if col < len(values) else None
        text = "" if value is None else str(value).strip()
        if not text:
            continue
        texts.append(text)
        lines.append(line)
        for i, out in others.items():
            cell = values[i] if i < len(values) else None
            out.append("" if cell is None else str(cell))
        if max_texts and len(texts) >= max_texts:
            break
    columns = {table.columns[i]: v for i, v in others.items()}
    notes = list(table.notes) + [f"texts from column {table.column_label(col)}"]
    return Corpus(str(path), "table", texts, lines, columns, notes)


def _squad_corpus(path: Path, max_texts: int) -> Corpus:
    from explorer.core.data.squad import _read_json

    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise EmbeddingError(f"{path}: a .json corpus must be an official SQuAD file (an object with a 'data' "
                             "list of articles)")
    texts, lines, titles, seen = [], [], [], set()
    k = 0
    for article in data["data"]:
        for paragraph in article.get("paragraphs", []):
            k += 1
            context = str(paragraph.get("context", "")).strip()
            if not context or context in seen:
                continue
            seen.add(context)
            texts.append(context)
            lines.append(k)
            titles.append(str(article.get("title", "")))
            if max_texts and len(texts) >= max_texts:
                return Corpus(str(path), "squad", texts, lines, {"title": titles}, ["SQuAD passages, each once"])
    return Corpus(str(path), "squad", texts, lines, {"title": titles}, ["SQuAD passages, each once"])


def _run_corpus(folder: Path, text_column: str, max_texts: int) -> Corpus:
    from explorer.core.runs.store import config_file
    from explorer.core.specs.tasks import find_task_facts

    config_path = config_file(folder)
    if not config_path.is_file():
        raise EmbeddingError(f"{folder}: not a run folder (no config.json); give a file or a run folder")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EmbeddingError(f"{config_path}: unreadable run config ({exc})") from None
    train = str(config.get("train", "") or "")
    if not train or not Path(train).is_file():
        raise EmbeddingError(f"{folder}: the run's training data {train!r} is not a file here")
    facts = find_task_facts(str(config.get("task", "")))
    kind = facts.data_kind if facts is not None else "table"
    if kind == "conll":
        from explorer.core.data.conll import load_tagging

        data = load_tagging(train, cap=max_texts)
        texts = [" ".join(words) for words in data.words]
        corpus = Corpus(train, "conll", texts, list(range(1, len(texts) + 1)), notes=["sentences, words joined"])
    elif kind == "squad":
        corpus = _squad_corpus(Path(train), max_texts)
    else:
        columns = list(config.get("text_columns") or [])
        corpus = read_corpus(train, text_column=text_column or (columns[0] if columns else ""), max_texts=max_texts)
    corpus.notes.append(f"the training data of run {folder.name}")
    return corpus


# ------------------------------------------------------------------------------------------------ occurrences
@dataclass
class Occurrence:
    """One occurrence of the word: text ``text`` (index into the corpus), characters ``start:end``."""

    text: int
    start: int
    end: int


@dataclass
class Occurrences:
    """The occurrences kept (at most the cap, spread evenly over the corpus) and how many there were."""

    word: str
    case_sensitive: bool
    items: list[Occurrence]
    total: int

    @property
    def capped(self) -> bool:
        """True when some occurrences were left out by the cap."""
        return len(self.items) < self.total


def word_pattern(word: str, case_sensitive: bool = False) -> re.Pattern:
    """The regular expression of ``word`` (a word or a phrase) as a whole word: no letter, digit or
    underscore right before or after it; the spaces of a phrase match any run of white space."""
    parts = [re.escape(p) for p in word.split()]
    if not parts:
        raise EmbeddingError("enter a word to find")
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", 0 if case_sensitive else re.IGNORECASE)


def find_occurrences(texts: list[str], word: str, *, case_sensitive: bool = False, cap: int = 0,
                     where: str = "the corpus") -> Occurrences:
    """Every whole-word occurrence of ``word`` in ``texts``; with ``cap`` > 0 at most ``cap`` of them, spread
    evenly over all occurrences in corpus order (so a cap does not keep only the first articles).

    Raises:
        EmbeddingError: empty word, or the word never occurs (the message names ``where`` and the options).
    """
    pattern = word_pattern(word, case_sensitive)
    found = [Occurrence(i, m.start(), m.end()) for i, text in enumerate(texts) for m in pattern.finditer(text)]
    if not found:
        case = "case-sensitive" if case_sensitive else "ignoring case"
        raise EmbeddingError(f"{word.strip()!r} does not occur in {where} ({len(texts):,} texts; whole words, "
                             f"{case})")
    total = len(found)
    if cap and total > cap:
        keep = np.unique(np.linspace(0, total - 1, cap).round().astype(int))
        found = [found[k] for k in keep]
    return Occurrences(word.strip(), case_sensitive, found, total)


def highlighted(text: str, start: int, end: int, width: int = 0) -> tuple[str, str, str]:
    """(before, word, after) of a text around characters ``start:end``; ``width`` > 0 keeps at most that many
    characters on each side (with "…" where cut)."""
    before, word, after = text[:start], text[start:end], text[end:]
    if width and len(before) > width:
        before = "…" + before[-width:]
    if width and len(after) > width:
        after = after[:width] + "…"
    return before, word, after


# ------------------------------------------------------------------------------------------------ model inputs
LOADABLE_HEADS = ("qa", "classification", "multiple_choice", "token_classification")


def load_encoder(source: str, tokenizer: str | None = None):
    """Load a model to embed with: a checkpoint with its own head (so a fine-tuned classifier keeps its trained
    pooler), anything else (a bare encoder, a pre-training checkpoint, a hub id) with a classification head
    (unused; its pooler loads when the checkpoint has one); ``tokenizer``: as load_model's. Returns
    core.models.loading.LoadedModel.

    Raises:
        ModelSourceError: see core.models.loading.load_model."""
    from explorer.core.models.loading import checkpoint_head, load_model, resolve_source

    try:
        head = checkpoint_head(resolve_source(source))
    except Exception:   # noqa: BLE001 - load_model names a bad source
        head = None
    return load_model(source, head if head in LOADABLE_HEADS else "classification", tokenizer=tokenizer)


def has_trained_classifier(loaded) -> bool:
    """True for a sequence-classification model whose head came from its checkpoint (a fine-tuned
    classifier): its predictions are worth a colour column."""
    return getattr(loaded, "task", "") == "classification" and not getattr(loaded, "head_initialised", True)


def pooler_untrained(loaded) -> bool:
    """True when the model's pooler weights were not in its checkpoint (newly initialised: random)."""
    return any(".pooler." in f".{k}" for k in (getattr(loaded, "missing_keys", None) or []))


def encoder_of(model):
    """The bare encoder of a model with a task head (``model.base_model``), or the model itself."""
    return getattr(model, "base_model", model)


@dataclass
class OccurrenceInputs:
    """The model inputs of occurrences: ``inputs`` (token ids with special tokens, one list per distinct
    input), and per occurrence kept the input it is in and its piece positions there. ``dropped``: the
    occurrences no piece covers (left out); ``windowed``: occurrences in a text longer than the model's
    inputs, embedded in a window of ``max_seq_length`` tokens centred on the word."""

    inputs: list[list[int]]
    input_of: list[int]
    pieces: list[list[int]]
    kept: list[int]
    dropped: int = 0
    windowed: int = 0


def occurrence_inputs(tokenizer, texts: list[str], occurrences: list[Occurrence], *,
                      max_seq_length: int = 512) -> OccurrenceInputs:
    """Tokenize each text once (fast tokenizer, offset mapping) and find each occurrence's pieces: the pieces
    whose characters overlap the occurrence's. Occurrences in one text share its input unless the text is
    longer than ``max_seq_length`` tokens; then each gets the window centred on its pieces.

    Raises:
        EmbeddingError: a tokenizer without offset mappings (a slow tokenizer)."""
    if not getattr(tokenizer, "is_fast", False):
        raise EmbeddingError("the model's tokenizer is not a fast tokenizer: word pieces cannot be located")
    by_text: dict[int, list[int]] = {}
    for k, occ in enumerate(occurrences):
        by_text.setdefault(occ.text, []).append(k)
    out = OccurrenceInputs([], [], [], [])
    slots: dict[int, tuple[int, list[int]]] = {}
    texts_needed = sorted(by_text)
    encoded = tokenizer([texts[i] for i in texts_needed], return_offsets_mapping=True,
                        return_special_tokens_mask=True, add_special_tokens=True, truncation=False, verbose=False)
    for row, t in enumerate(texts_needed):
        ids = encoded["input_ids"][row]
        offsets = encoded["offset_mapping"][row]
        special = encoded["special_tokens_mask"][row]
        content = [i for i, s in enumerate(special) if not s]
        head = [i for i in range(len(ids)) if special[i] and (not content or i < content[0])]
        tail = [i for i in range(len(ids)) if special[i] and content and i > content[-1]]
        room = max(1, max_seq_length - len(head) - len(tail))
        whole = -1
        for k in by_text[t]:
            occ = occurrences[k]
            pieces = [i for i in content if offsets[i][0] < occ.end and offsets[i][1] > occ.start]
            if not pieces:
                out.dropped += 1
                continue
            if len(ids) <= max_seq_length:
                if whole < 0:
                    whole = len(out.inputs)
                    out.inputs.append(list(ids))
                index, positions = whole, pieces
            else:
                out.windowed += 1
                first = content.index(pieces[0])
                lo = max(0, min(first - (room - len(pieces)) // 2, len(content) - room))
                window = content[lo:lo + room]
                key = window[0]
                if key not in slots:
                    slots[key] = (len(out.inputs), window)
                    out.inputs.append([ids[i] for i in head + window + tail])
                index = slots[key][0]
                positions = [len(head) + window.index(i) for i in pieces if i in window]
            out.input_of.append(index)
            out.pieces.append(positions)
            out.kept.append(k)
    return out


def batches(tokenizer, inputs: list[list[int]], batch_size: int) -> list[tuple[list[int], dict]]:
    """The inputs in batches of ``batch_size``, sorted by length (little padding): (input indices, tensors
    ``input_ids`` and ``attention_mask``, right-padded with the tokenizer's pad id)."""
    import torch

    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i]))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out = []
    for s in range(0, len(order), batch_size):
        chunk = order[s:s + batch_size]
        width = max(len(inputs[i]) for i in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for r, i in enumerate(chunk):
            ids[r, :len(inputs[i])] = torch.tensor(inputs[i])
            mask[r, :len(inputs[i])] = 1
        out.append((chunk, {"input_ids": ids, "attention_mask": mask}))
    return out


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise Cancelled()


def _device_of(model):
    try:
        return next(model.parameters()).device
    except StopIteration:
        return "cpu"


def embed_occurrences(model, tokenizer, texts: list[str], occurrences: list[Occurrence], *,
                      max_seq_length: int = 512, batch_size: int = 16, progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None) -> tuple[np.ndarray, OccurrenceInputs]:
    """Each occurrence's vector at every layer: the mean over the word's pieces of ``hidden_states[l]``.

    Returns:
        (vectors, inputs): vectors of shape (layers + 1, kept occurrences, hidden), float32, row 0 = the
        embedding layer's output; ``inputs.kept`` says which occurrences they are (an occurrence no piece
        covers is left out).

    ``progress(done, total)`` in occurrences after each batch; ``cancelled()`` true raises Cancelled.
    """
    import torch

    prepared = occurrence_inputs(tokenizer, texts, occurrences, max_seq_length=max_seq_length)
    encoder = encoder_of(model)
    n_layers = encoder.config.num_hidden_layers + 1
    out = np.zeros((n_layers, len(prepared.kept), encoder.config.hidden_size), dtype=np.float32)
    by_input: dict[int, list[int]] = {}
    for j, index in enumerate(prepared.input_of):
        by_input.setdefault(index, []).append(j)
    device = _device_of(encoder)
    done = 0
    with torch.inference_mode():
        for chunk, batch in batches(tokenizer, prepared.inputs, batch_size):
            _check(cancelled)
            batch = {k: v.to(device) for k, v in batch.items()}
            hidden = encoder(**batch, output_hidden_states=True).hidden_states
            js = [j for index in chunk for j in by_input.get(index, ())]
            if js:
                row_of = {index: r for r, index in enumerate(chunk)}
                width = max(len(prepared.pieces[j]) for j in js)
                rows = torch.tensor([row_of[prepared.input_of[j]] for j in js], device=device)[:, None]
                pos = torch.tensor([prepared.pieces[j] + [0] * (width - len(prepared.pieces[j])) for j in js],
                                   device=device)
                keep = (torch.arange(width, device=device)[None, :]
                        < torch.tensor([len(prepared.pieces[j]) for j in js], device=device)[:, None])
                weight = (keep.float() / keep.sum(1, keepdim=True).float())[:, :, None]
                for layer, h in enumerate(hidden):
                    out[layer, js] = (h.float()[rows, pos] * weight).sum(1).cpu().numpy()
                done += len(js)
            if progress is not None:
                progress(done, len(prepared.kept))
    return out, prepared


def embed_sentences(model, tokenizer, texts: list[str], pooling: str = "cls", *, max_seq_length: int = 128,
                    batch_size: int = 32, progress: Progress | None = None,
                    cancelled: Callable[[], bool] | None = None, predicted: list | None = None) -> np.ndarray:
    """One vector per text.

    Args:
        pooling: "cls" (the [CLS] token's hidden state), "mean" (the mean over the tokens the attention mask
            keeps, special tokens included, as sentence-transformers pools), "pooler" (the model's pooler
            output: tanh(W h_[CLS] + b) of the last layer).
        max_seq_length: longer texts are truncated to this many tokens.
        predicted: a list to fill with each text's predicted class id (argmax of the model's sequence-
            classification logits, from the same forward pass); None = no prediction.

    Returns:
        float32 array (layers + 1, texts, hidden) for cls and mean (every layer, 0 = the embedding layer's
        output), (1, texts, hidden) for pooler.

    Raises:
        EmbeddingError: unknown pooling, or pooler on a model without a pooler.
    """
    import torch

    if pooling not in POOLINGS:
        raise EmbeddingError(f"unknown pooling {pooling!r}; use one of {', '.join(POOLINGS)}")
    encoder = encoder_of(model)
    if pooling == "pooler" and getattr(encoder, "pooler", None) is None:
        raise EmbeddingError("this model has no pooler (its checkpoint was saved without one); use cls or mean")
    encoded = tokenizer(texts, truncation=True, max_length=max_seq_length, add_special_tokens=True)
    n_layers = 1 if pooling == "pooler" else encoder.config.num_hidden_layers + 1
    out = np.zeros((n_layers, len(texts), encoder.config.hidden_size), dtype=np.float32)
    device = _device_of(encoder)
    done = 0
    with torch.inference_mode():
        for chunk, batch in batches(tokenizer, encoded["input_ids"], batch_size):
            _check(cancelled)
            batch = {k: v.to(device) for k, v in batch.items()}
            if predicted is None:
                result = encoder(**batch, output_hidden_states=pooling != "pooler")
            else:
                result, logits = _with_logits(model, encoder, batch)
                predicted.extend(zip(chunk, logits.argmax(-1).tolist()))
            rows = np.asarray(chunk)
            if pooling == "pooler":
                out[0, rows] = result.pooler_output.float().cpu().numpy()
            else:
                stacked = torch.stack(result.hidden_states, 0).float()
                if pooling == "cls":
                    out[:, rows] = stacked[:, :, 0].cpu().numpy()
                else:
                    mask = batch["attention_mask"].to(stacked.dtype)[None, :, :, None]
                    out[:, rows] = ((stacked * mask).sum(2) / mask.sum(2)).cpu().numpy()
            done += len(chunk)
            if progress is not None:
                progress(done, len(texts))
    if predicted is not None:
        predicted[:] = [label for _, label in sorted(predicted)]
    return out


def _with_logits(model, encoder, batch: dict):
    """One forward of the whole model: (the encoder's output, caught by a forward hook, with hidden states
    and pooler output; the head's logits)."""
    caught = {}
    hook = encoder.register_forward_hook(lambda _m, _i, output: caught.setdefault("out", output))
    try:
        logits = model(**batch, output_hidden_states=True).logits
    finally:
        hook.remove()
    return caught["out"], logits


def static_embedding(model, tokenizer, word: str) -> np.ndarray:
    """The word's static input embedding: the mean of its pieces' rows of the input embedding matrix
    (``get_input_embeddings().weight``; no position or segment embedding), float32 (hidden,)."""
    import torch

    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if not ids:
        raise EmbeddingError(f"{word!r} has no word pieces in this model's vocabulary")
    with torch.inference_mode():
        weight = encoder_of(model).get_input_embeddings().weight
        return weight[torch.tensor(ids, device=weight.device)].float().mean(0).cpu().numpy()


# ------------------------------------------------------------------------------------------------ spaces
@dataclass
class EmbeddingSpace:
    """The points of one embedding request, at every layer.

    Attributes:
        mode: "word" (one point per occurrence) or "sentences" (one point per text).
        word: the word searched ("" for sentences); pooling: the sentence pooling ("" for words).
        layers: the layer of each row of ``vectors`` (0 = the embedding layer's output; a pooler: the last).
        vectors: float32 (len(layers), points, hidden).
        texts: each point's text; starts / ends: the word's characters in it (-1 for sentences).
        columns: colour columns, name -> one value per point (the corpus's columns, "model" for two models).
        static: the word's static input embedding (hidden,), or None.
        total: occurrences found before the cap (sentences: texts read).
        source: the corpus; model: the model's name (two models: "A vs B").
        notes: what happened (cap, windows, dropped occurrences, alignment).
        ref: the inspector child's name for a space it keeps (:func:`summary_of`); 0 otherwise.
    """

    mode: str
    word: str
    pooling: str
    layers: list[int]
    vectors: np.ndarray
    texts: list[str]
    starts: list[int]
    ends: list[int]
    columns: dict[str, list[str]]
    static: np.ndarray | None
    total: int
    source: str = ""
    model: str = ""
    notes: list[str] = field(default_factory=list)
    ref: int = 0

    @property
    def n_points(self) -> int:
        """Points per layer."""
        return len(self.texts)

    @property
    def hidden(self) -> int:
        """The vectors' dimension."""
        return int(self.vectors.shape[2])

    @property
    def has_static(self) -> bool:
        """The space has the word's static embedding."""
        return self.static is not None

    def layer_row(self, layer: int) -> int:
        """The row of ``vectors`` of ``layer`` (-1 = the last).

        Raises:
            EmbeddingError: a layer the space lacks."""
        if layer < 0:
            return len(self.layers) - 1
        if layer not in self.layers:
            raise EmbeddingError(f"layer {layer} is not among the layers embedded ({self.layers[0]}..{self.layers[-1]})")
        return self.layers.index(layer)

    def metadata(self, layer: int, *, context: int = 60) -> dict[str, list[str]]:
        """The projector metadata of ``layer``'s points: text, word (the form in the text), layer, context
        (the word in brackets with ``context`` characters each side) and every colour column."""
        shown = str(self.layers[self.layer_row(layer)])
        words, contexts = [], []
        for text, s, e in zip(self.texts, self.starts, self.ends):
            if s >= 0:
                before, word, after = highlighted(text, s, e, context)
                words.append(word)
                contexts.append(f"{before}[{word}]{after}")
            else:
                words.append("")
                contexts.append(text[: 2 * context])
        meta = {"text": list(self.texts), "word": words, "layer": [shown] * self.n_points, "context": contexts}
        for name, values in self.columns.items():
            meta[name if name not in meta else f"{name} (column)"] = list(values)
        return meta


def build_space(model, tokenizer, corpus: Corpus, *, word: str = "", case_sensitive: bool = False,
                max_occurrences: int = 2000, pooling: str = "cls", max_seq_length: int = 0, batch_size: int = 16,
                occurrences: Occurrences | None = None, model_name: str = "", predict: bool = False,
                progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> EmbeddingSpace:
    """The embedding space of ``corpus``: with ``word``, one point per occurrence (at most
    ``max_occurrences``, 0 = all) and the word's static embedding; without, one point per text
    (at most ``max_occurrences`` texts) pooled by ``pooling``. ``occurrences``: found already (a second
    model embeds the same ones). ``max_seq_length`` 0 = the model's limit (512 for words, 128 for sentences).
    ``predict``: sentences get a "predicted" column (the model's sequence-classification head, same forward).

    Raises:
        EmbeddingError: the word never occurs, bad pooling; Cancelled when ``cancelled()`` turns true.
    """
    limit = _model_limit(model, tokenizer)
    if word.strip():
        occ = occurrences or find_occurrences(corpus.texts, word, case_sensitive=case_sensitive,
                                              cap=max_occurrences, where=corpus.source)
        vectors, prepared = embed_occurrences(model, tokenizer, corpus.texts, occ.items,
                                              max_seq_length=min(max_seq_length or limit, limit),
                                              batch_size=batch_size, progress=progress, cancelled=cancelled)
        kept = [occ.items[k] for k in prepared.kept]
        notes = [f"{len(kept):,} of {occ.total:,} occurrences"
                 + (" (spread evenly over the corpus)" if occ.capped else "")]
        if prepared.windowed:
            notes.append(f"{prepared.windowed:,} in texts longer than the model's inputs: embedded in a window "
                         "centred on the word")
        if prepared.dropped:
            notes.append(f"{prepared.dropped:,} occurrences no word piece covers were left out")
        columns = {name: [values[o.text] for o in kept] for name, values in corpus.columns.items()}
        return EmbeddingSpace("word", occ.word, "", list(range(vectors.shape[0])), vectors,
                              [corpus.texts[o.text] for o in kept], [o.start for o in kept], [o.end for o in kept],
                              columns, static_embedding(model, tokenizer, occ.word), occ.total, corpus.source,
                              model_name, notes)
    n = min(len(corpus.texts), max_occurrences) if max_occurrences else len(corpus.texts)
    texts = corpus.texts[:n]
    predicted = [] if predict else None
    vectors = embed_sentences(model, tokenizer, texts, pooling, max_seq_length=min(max_seq_length or 128, limit),
                              batch_size=batch_size, progress=progress, cancelled=cancelled, predicted=predicted)
    n_layers = encoder_of(model).config.num_hidden_layers
    layers = [n_layers] if pooling == "pooler" else list(range(n_layers + 1))
    columns = {name: values[:n] for name, values in corpus.columns.items()}
    if predicted is not None:
        names = getattr(model.config, "id2label", None) or {}
        columns[PREDICTED] = [str(names.get(k, names.get(str(k), k))) for k in predicted]
    notes = [f"{n:,} of {len(corpus.texts):,} texts, pooled by {pooling}"]
    return EmbeddingSpace("sentences", "", pooling, layers, vectors, texts, [-1] * n, [-1] * n, columns, None,
                          len(corpus.texts), corpus.source, model_name, notes)


def space_of(loaded, corpus: Corpus, **options) -> EmbeddingSpace:
    """:func:`build_space` on a LoadedModel (named by core.models.info.model_name), refusing the pooler of a
    checkpoint that was saved without one (its pooler would be random).

    Raises:
        EmbeddingError: pooling "pooler" with an untrained pooler, and what build_space raises."""
    from explorer.core.models.info import model_name

    if not options.get("word", "").strip() and options.get("pooling") == "pooler" and pooler_untrained(loaded):
        raise EmbeddingError(f"the pooler of {model_name(loaded)} is not in its checkpoint (it would be random); "
                             "use cls or mean")
    options.setdefault("model_name", model_name(loaded))
    options.setdefault("predict", has_trained_classifier(loaded))
    return build_space(loaded.model, loaded.tokenizer, corpus, **options)


def _model_limit(model, tokenizer) -> int:
    config = encoder_of(model).config
    positions = int(getattr(config, "max_position_embeddings", 512) or 512)
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        positions -= 2
    tok_max = int(getattr(tokenizer, "model_max_length", positions) or positions)
    return max(8, min(positions, tok_max if tok_max < 10**6 else positions))


def pair_spaces(a: EmbeddingSpace, b: EmbeddingSpace, name_a: str, name_b: str, *, align: bool = True) -> EmbeddingSpace:
    """Model A's and model B's points of the same inputs in one space (B's points after A's, a "model"
    column naming each); with ``align`` B's vectors are first rotated onto A's layer by layer by orthogonal
    Procrustes (:func:`procrustes_align`), so that the map shows what moved, not an arbitrary rotation.

    Raises:
        EmbeddingError: different points, layers or hidden sizes (B must embed the same texts)."""
    if a.texts != b.texts or a.starts != b.starts or a.layers != b.layers:
        raise EmbeddingError("the two models embedded different points or layers; B must read the same corpus "
                             "with the same settings (and a model of the same depth)")
    if a.vectors.shape[2] != b.vectors.shape[2]:
        raise EmbeddingError(f"the models' hidden sizes differ ({a.vectors.shape[2]} vs {b.vectors.shape[2]}): "
                             "they cannot share one space")
    vb = b.vectors
    notes = list(a.notes)
    if align:
        vb = np.stack([procrustes_align(b.vectors[r], a.vectors[r])[0] for r in range(len(a.layers))]).astype(np.float32)
        notes.append(f"{name_b} rotated onto {name_a} by orthogonal Procrustes, layer by layer")
    blank_a, blank_b = [""] * a.n_points, [""] * b.n_points
    columns = {k: a.columns.get(k, blank_a) + b.columns.get(k, blank_b) for k in dict.fromkeys([*a.columns, *b.columns])}
    columns["model"] = [name_a] * a.n_points + [name_b] * b.n_points
    static = a.static
    return EmbeddingSpace(a.mode, a.word, a.pooling, a.layers, np.concatenate([a.vectors, vb], 1), a.texts + b.texts,
                          a.starts + b.starts, a.ends + b.ends, columns, static, a.total, a.source,
                          f"{name_a} vs {name_b}", notes)


# ------------------------------------------------------------------------------------------------ maps
def procrustes_align(source: np.ndarray, target: np.ndarray, *, scale: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Rotate ``source`` (n, d) onto ``target`` (n, d), row i onto row i: both centred, the orthogonal
    R minimising ||(S - mean S) R - (T - mean T)||_F (scipy.linalg.orthogonal_procrustes), then moved to
    T's mean; ``scale`` also scales S to T's spread (for 2-D maps). Returns (aligned (n, d), R (d, d))."""
    from scipy.linalg import orthogonal_procrustes

    s = np.asarray(source, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    sc, tc = s - s.mean(0), t - t.mean(0)
    rotation, trace = orthogonal_procrustes(sc, tc)
    factor = trace / max((sc ** 2).sum(), 1e-12) if scale else 1.0
    return sc @ rotation * factor + t.mean(0), rotation


def shared_pca(vectors: np.ndarray, extra: np.ndarray | None = None, *, seed: int = 0) -> np.ndarray:
    """One PCA fitted on every layer's points stacked (and ``extra`` rows, e.g. the static embedding),
    applied to each layer: (layers, points [+ extra], 2) float32, one frame for the layer slider."""
    from sklearn.decomposition import PCA

    rows = vectors if extra is None else np.concatenate([vectors, np.broadcast_to(extra, (vectors.shape[0], 1) + extra.shape)], 1)
    flat = rows.reshape(-1, rows.shape[-1])
    pca = PCA(n_components=2, random_state=seed).fit(flat)
    return pca.transform(flat).reshape(rows.shape[0], rows.shape[1], 2).astype(np.float32)


class _IterationReader(io.TextIOBase):
    """t-SNE's verbose lines ("[t-SNE] Iteration 350: error = ...") turned into progress and cancel."""

    def __init__(self, total: int, progress: Progress | None, cancelled):
        self.total, self.progress, self.cancelled = total, progress, cancelled

    def write(self, text: str) -> int:
        _check(self.cancelled)
        found = re.search(r"Iteration (\d+)", text)
        if found and self.progress is not None:
            self.progress(min(int(found.group(1)), self.total), self.total)
        return len(text)


def project(vectors: np.ndarray, method: str = "pca", *, seed: int = 0, perplexity: float = 30.0,
            iterations: int = 1000, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> np.ndarray:
    """(n, d) -> (n, 2) float32 by PCA, t-SNE (scikit-learn, Barnes-Hut, PCA init; progress every 50 of its
    ``iterations`` (at least 250), cancel between them) or UMAP (umap-learn, cosine metric).

    Raises:
        EmbeddingError: unknown method, UMAP without umap-learn, fewer than 3 points for t-SNE / UMAP.
    """
    x = np.asarray(vectors, dtype=np.float32)
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(x).astype(np.float32)
    if method not in PROJECTIONS:
        raise EmbeddingError(f"unknown projection {method!r}; use one of {', '.join(PROJECTIONS)}")
    if len(x) < 4:
        raise EmbeddingError(f"{PROJECTION_LABELS[method]} needs at least 4 points; there are {len(x)}")
    if method == "umap":
        if not umap_available():
            raise EmbeddingError("UMAP needs the optional package umap-learn (pip install 'bert-explorer[umap]')")
        import umap

        _check(cancelled)
        return umap.UMAP(n_components=2, metric="cosine", random_state=seed,
                         n_neighbors=min(15, len(x) - 1)).fit_transform(x).astype(np.float32)
    from sklearn.manifold import TSNE

    iterations = max(250, int(iterations))
    tsne = TSNE(n_components=2, perplexity=min(perplexity, (len(x) - 1) / 3), init="pca", random_state=seed,
                max_iter=iterations, verbose=2)
    with contextlib.redirect_stdout(_IterationReader(iterations, progress, cancelled)):
        coords = tsne.fit_transform(x)
    if progress is not None:
        progress(iterations, iterations)
    return coords.astype(np.float32)


@dataclass
class Projection:
    """A 2-D map of a space's points: ``coords`` (points, 2) float32, ``static`` (2,) the static embedding's
    place or None, ``method`` ("pca" | "tsne" | "umap"), ``layer`` (-1 = every layer, stacked: then
    ``point_layers`` gives each point's layer and the points repeat layer by layer), ``clusters`` (k-means
    label per point or None)."""

    layer: int
    method: str
    coords: np.ndarray
    static: np.ndarray | None = None
    clusters: list[int] | None = None
    point_layers: list[int] | None = None


def project_space(space: EmbeddingSpace, layer: int | None, method: str = "pca", *, clusters: int = 0,
                  seed: int = 0, shared: np.ndarray | None = None, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None) -> tuple[Projection, np.ndarray]:
    """Layer ``layer`` of ``space`` in 2-D, in the frame shared by all its layers: PCA is fitted once on every
    layer stacked (``shared``: that result, computed when None); t-SNE and UMAP are fitted on this layer and
    rotated and scaled onto the shared PCA map of the layer by orthogonal Procrustes, so that moving the slider
    does not flip the picture. ``layer`` None: every layer's points in one map (t-SNE / UMAP fitted on all
    layers stacked). ``clusters`` > 0 adds k-means labels of the vectors (of this layer, or of each layer's
    points for all layers).

    Returns:
        (Projection, shared) - keep ``shared`` for the next layer."""
    if shared is None:
        shared = shared_pca(space.vectors, space.static, seed=seed)
    n = space.n_points
    if layer is None:
        rows = range(len(space.layers))
        coords = shared[:, :n].reshape(-1, 2)
        static = shared[-1, n] if space.static is not None else None
        if method != "pca":
            x = space.vectors.reshape(-1, space.vectors.shape[2])
            x = x if space.static is None else np.vstack([x, space.static[None]])
            target = coords if static is None else np.vstack([coords, static[None]])
            fitted = procrustes_align(project(x, method, seed=seed, progress=progress, cancelled=cancelled), target,
                                      scale=True)[0].astype(np.float32)
            coords, static = fitted[:len(coords)], (fitted[-1] if space.static is not None else None)
        labels = (kmeans(space.vectors.reshape(-1, space.vectors.shape[2]), clusters, seed=seed).tolist()
                  if clusters else None)
        return Projection(-1, method, np.ascontiguousarray(coords, np.float32),
                          None if static is None else np.asarray(static, np.float32).copy(), labels,
                          [space.layers[r] for r in rows for _ in range(n)]), shared
    row = space.layer_row(layer)
    coords = shared[row]
    if method != "pca":
        x = space.vectors[row] if space.static is None else np.vstack([space.vectors[row], space.static[None]])
        coords = procrustes_align(project(x, method, seed=seed, progress=progress, cancelled=cancelled), coords,
                                  scale=True)[0].astype(np.float32)
    labels = kmeans(space.vectors[row], clusters, seed=seed).tolist() if clusters else None
    return Projection(space.layers[row], method, coords[:n].copy(),
                      coords[n].copy() if space.static is not None else None, labels), shared


def summary_of(space: EmbeddingSpace, ref: int) -> EmbeddingSpace:
    """What the Embeddings page is sent of ``space`` kept in the inspector child under ``ref``: the same
    space with no vectors (shape (layers, 0, hidden)); projections, neighbours and exports name ``ref``."""
    import dataclasses

    empty = np.zeros((len(space.layers), 0, space.vectors.shape[2]), dtype=np.float32)
    return dataclasses.replace(space, vectors=empty, ref=ref)


def kmeans(vectors: np.ndarray, k: int, *, seed: int = 0) -> np.ndarray:
    """k-means cluster of each row (scikit-learn KMeans, 10 restarts), int array (n,); k is capped at n."""
    from sklearn.cluster import KMeans

    k = max(1, min(int(k), len(vectors)))
    return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(np.asarray(vectors, np.float64)).astype(int)


def nearest_neighbours(vectors: np.ndarray, index: int, k: int = 10) -> list[tuple[int, float]]:
    """The ``k`` rows nearest row ``index`` by cosine similarity in the original space (itself left out):
    [(row, cosine)], most similar first."""
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1)
    norms[norms == 0] = 1.0
    sims = (x @ x[index]) / (norms * norms[index])
    sims[index] = -np.inf
    k = min(k, len(x) - 1)
    best = np.argpartition(-sims, k - 1)[:k] if k > 0 else np.array([], int)
    best = best[np.argsort(-sims[best], kind="stable")]
    return [(int(j), float(sims[j])) for j in best]


# ------------------------------------------------------------------------------------------------ export
def projector_cell(value) -> str:
    """A metadata cell for the projector's TSV: tabs, newlines, carriage returns and backslashes escaped
    (``\\t``, ``\\n``, ``\\r``, ``\\\\``), so one point stays one row."""
    text = "" if value is None else str(value)
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r"))


@dataclass
class ProjectorFiles:
    """The files written: ``vectors`` (vectors.tsv), ``metadata`` (metadata.tsv), ``config``
    (projector_config.pbtxt), ``coordinates`` (coordinates.csv or None)."""

    vectors: str
    metadata: str
    config: str
    coordinates: str | None = None


def write_projector(folder: str | Path, vectors: np.ndarray, metadata: dict[str, list]) -> ProjectorFiles:
    """Write the TensorBoard projector format into ``folder``: ``vectors.tsv`` (one row per point, its floats
    tab-separated, no header), ``metadata.tsv`` (a header row of the column names, then one row per point)
    and ``projector_config.pbtxt`` naming both (TensorBoard's projector plugin reads it from a log folder; the
    standalone projector loads the two TSVs).

    Raises:
        EmbeddingError: a metadata column whose length is not the number of points."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    x = np.asarray(vectors, dtype=np.float32)
    for name, values in metadata.items():
        if len(values) != len(x):
            raise EmbeddingError(f"metadata column {name!r} has {len(values)} values for {len(x)} points")
    vec_path, meta_path, config_path = folder / "vectors.tsv", folder / "metadata.tsv", folder / "projector_config.pbtxt"
    with open(vec_path, "w", encoding="utf-8", newline="\n") as f:
        for row in x:
            f.write("\t".join(f"{v:.7g}" for v in row) + "\n")
    names = list(metadata)
    with open(meta_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(projector_cell(n) for n in names) + "\n")
        for i in range(len(x)):
            f.write("\t".join(projector_cell(metadata[n][i]) for n in names) + "\n")
    config_path.write_text('embeddings {\n  tensor_path: "vectors.tsv"\n  metadata_path: "metadata.tsv"\n}\n',
                           encoding="utf-8")
    return ProjectorFiles(str(vec_path), str(meta_path), str(config_path))


def write_coordinates(path: str | Path, coords: np.ndarray, metadata: dict[str, list]) -> str:
    """A CSV of the 2-D map: columns x, y, then the metadata columns; one row per point (csv module quoting)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(metadata)
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x", "y"] + names)
        for i, (x, y) in enumerate(np.asarray(coords, dtype=np.float64)):
            w.writerow([f"{x:.6g}", f"{y:.6g}"] + [metadata[n][i] for n in names])
    return str(path)


def export_space(space: EmbeddingSpace, folder: str | Path, layer: int, projection: Projection | None = None, *,
                 all_layers: bool = False, include_static: bool = True) -> ProjectorFiles:
    """``space``'s points at ``layer`` (every layer, stacked, with ``all_layers`` or a projection of every
    layer) written as projector files, plus the static embedding as a point whose layer is "static"; with
    ``projection`` also coordinates.csv (its map; clusters as a "cluster" column). Returns the files written."""
    every = all_layers or (projection is not None and projection.point_layers is not None)
    rows = list(range(len(space.layers))) if every else [space.layer_row(layer)]
    vectors, meta = [], {}
    for r in rows:
        vectors.append(space.vectors[r])
        for k, v in space.metadata(space.layers[r]).items():
            meta.setdefault(k, []).extend(v)
    n = space.n_points
    if projection is not None and projection.clusters is not None:
        if projection.point_layers is not None:
            meta["cluster"] = [str(c) for c in projection.clusters]
        elif not every:
            meta["cluster"] = [str(c) for c in projection.clusters]
        else:
            at = rows.index(space.layer_row(projection.layer))
            meta["cluster"] = ["" if i // n != at else str(projection.clusters[i % n]) for i in range(len(rows) * n)]
    x = np.concatenate(vectors, 0)
    if include_static and space.static is not None:
        x = np.vstack([x, space.static[None]])
        for k in meta:
            meta[k].append({"text": space.word, "word": space.word, "layer": "static",
                            "context": f"[{space.word}] (input embedding)"}.get(k, ""))
    files = write_projector(folder, x, meta)
    if projection is not None:
        if projection.point_layers is not None:
            cmeta = {k: v[:len(rows) * n] for k, v in meta.items()}
        else:
            at = rows.index(space.layer_row(projection.layer))
            cmeta = {k: v[at * n:(at + 1) * n] for k, v in meta.items()}
        coords = projection.coords
        if include_static and projection.static is not None and space.static is not None:
            coords = np.vstack([coords, projection.static[None]])
            cmeta = {k: cmeta[k] + [meta[k][-1]] for k in cmeta}
        files.coordinates = write_coordinates(Path(folder) / "coordinates.csv", coords, cmeta)
    return files
