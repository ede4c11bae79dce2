"""The points of one embedding request at every layer (:class:`EmbeddingSpace`) and how they are made: a
corpus embedded by a model (:func:`build_space`, :func:`space_of`), two models' points of the same inputs in
one space (:func:`pair_spaces`), and what the Embeddings page is sent of a space kept in the inspector child
(:func:`summary_of`). Qt-free; torch through explorer.core.embeddings.vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from explorer.core.embeddings.corpus import Corpus
from explorer.core.embeddings.geometry import procrustes_align
from explorer.core.embeddings.occurrences import Occurrences, find_occurrences, highlighted
from explorer.core.embeddings.vectors import (Progress, embed_occurrences, embed_sentences, encoder_of,
                                              has_trained_classifier, pooler_untrained, static_embedding)
from explorer.core.errors import EmbeddingError

PREDICTED = "predicted"   # the colour column of a fine-tuned classifier's predicted labels


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
    from explorer.core.models.window_settings import usable_positions

    positions = usable_positions(encoder_of(model).config) or 512
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


def summary_of(space: EmbeddingSpace, ref: int) -> EmbeddingSpace:
    """What the Embeddings page is sent of ``space`` kept in the inspector child under ``ref``: the same
    space with no vectors (shape (layers, 0, hidden)); projections, neighbours and exports name ``ref``."""
    import dataclasses

    empty = np.zeros((len(space.layers), 0, space.vectors.shape[2]), dtype=np.float32)
    return dataclasses.replace(space, vectors=empty, ref=ref)
