"""Embeddings (explorer/core/embeddings/) and `bert-explorer embed` on a tiny random BERT: the vectors equal
transformers' hidden states, the projector files parse as TensorBoard's projector reads them, occurrences,
Procrustes, the corpus readers and the errors."""

import argparse
import csv
import json

import numpy as np
import pytest
import torch

from explorer.core.embeddings.corpus import Corpus, read_corpus
from explorer.core.embeddings.export import export_space
from explorer.core.embeddings.geometry import kmeans, nearest_neighbours, procrustes_align
from explorer.core.embeddings.occurrences import find_occurrences
from explorer.core.embeddings.projection import project, project_space, umap_available
from explorer.core.embeddings.space import EmbeddingSpace, pair_spaces, space_of
from explorer.core.embeddings.vectors import embed_occurrences, embed_sentences, load_encoder, static_embedding
from explorer.core.errors import Cancelled, EmbeddingError

TEXTS = ["the city of paris is on the river", "ada was born in london, a cat city",
         "The CAT sat. cat!", "no match in concatenate or cats", "a cat"]


@pytest.fixture(scope="module")
def tiny():
    from helpers import tiny_loaded_model

    return tiny_loaded_model("classification")


def _reference_word(loaded, text, start, end):
    """transformers' own hidden states of ``text`` alone (no batch, no padding), averaged over the pieces
    overlapping characters start:end: (layers + 1, hidden)."""
    enc = loaded.tokenizer(text, return_offsets_mapping=True, return_tensors="pt")
    offsets = enc.pop("offset_mapping")[0].tolist()
    with torch.no_grad():
        hidden = loaded.model.bert(**enc, output_hidden_states=True).hidden_states
    pieces = [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]
    assert pieces
    return torch.stack(hidden)[:, 0, pieces].mean(1).numpy(), len(pieces)


def test_word_vectors_equal_hidden_states_at_every_layer(tiny):
    occ = find_occurrences(TEXTS, "cat")
    vectors, prepared = embed_occurrences(tiny.model, tiny.tokenizer, TEXTS, occ.items, batch_size=2)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 4, 32)   # embeddings + 2 layers, 4 occurrences
    assert prepared.kept == [0, 1, 2, 3]
    multi = 0
    for j, o in enumerate(occ.items):
        ref, n_pieces = _reference_word(tiny, TEXTS[o.text], o.start, o.end)
        multi += n_pieces > 1
        np.testing.assert_allclose(vectors[:, j], ref, atol=1e-5, rtol=0)
    assert multi == len(occ.items)   # "cat" is c ##a ##t in the tiny vocab: a mean over 3 pieces
    # the layer-0 row is the embedding layer's output, not the raw word embedding
    static = static_embedding(tiny.model, tiny.tokenizer, "cat")
    rows = tiny.model.bert.get_input_embeddings().weight.detach()[tiny.tokenizer("cat", add_special_tokens=False)["input_ids"]]
    np.testing.assert_allclose(static, rows.mean(0).numpy(), atol=1e-6)
    assert np.abs(vectors[0, 0] - static).max() > 1e-3


def test_long_text_embeds_a_window_around_the_word(tiny):
    text = "the river " * 40 + "cat " + "the city " * 40
    occ = find_occurrences([text], "cat")
    vectors, prepared = embed_occurrences(tiny.model, tiny.tokenizer, [text], occ.items, max_seq_length=32)
    assert prepared.windowed == 1 and len(prepared.inputs[0]) == 32
    ids = prepared.inputs[0]
    assert ids[0] == tiny.tokenizer.cls_token_id and ids[-1] == tiny.tokenizer.sep_token_id
    with torch.no_grad():
        hidden = tiny.model.bert(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
    ref = torch.stack(hidden)[:, 0, prepared.pieces[0]].mean(1).numpy()
    np.testing.assert_allclose(vectors[:, 0], ref, atol=1e-5, rtol=0)
    assert tiny.tokenizer.decode([ids[p] for p in prepared.pieces[0]]).replace(" ", "") == "cat"


@pytest.mark.parametrize("pooling", ["cls", "pooler", "mean"])
def test_sentence_poolings_equal_transformers(tiny, pooling):
    texts = TEXTS[:4]
    got = embed_sentences(tiny.model, tiny.tokenizer, texts, pooling, batch_size=3)
    for i, text in enumerate(texts):
        enc = tiny.tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            out = tiny.model.bert(**enc, output_hidden_states=True)
        if pooling == "pooler":
            ref = out.pooler_output[0][None].numpy()
        elif pooling == "cls":
            ref = torch.stack(out.hidden_states)[:, 0, 0].numpy()
        else:
            ref = torch.stack(out.hidden_states)[:, 0].mean(1).numpy()
        np.testing.assert_allclose(got[:, i], ref, atol=1e-5, rtol=0)


def test_pooler_refused_when_missing_or_untrained(tiny):
    from helpers import tiny_loaded_model

    qa = tiny_loaded_model("qa")   # BertForQuestionAnswering has no pooler
    with pytest.raises(EmbeddingError, match="no pooler"):
        embed_sentences(qa.model, qa.tokenizer, ["a"], "pooler")
    tiny.missing_keys = ["bert.pooler.dense.weight"]
    try:
        with pytest.raises(EmbeddingError, match="pooler .* not in its checkpoint"):
            space_of(tiny, Corpus("c.txt", "text", ["a b"], [1]), pooling="pooler")
    finally:
        tiny.missing_keys = []


def test_occurrences_whole_word_case_and_cap():
    occ = find_occurrences(TEXTS, "cat")
    assert [(o.text, TEXTS[o.text][o.start:o.end]) for o in occ.items] == [(1, "cat"), (2, "CAT"), (2, "cat"), (4, "cat")]
    assert occ.total == 4 and not occ.capped   # not in "concatenate" or "cats"
    sensitive = find_occurrences(TEXTS, "cat", case_sensitive=True)
    assert sensitive.total == 3 and all(TEXTS[o.text][o.start:o.end] == "cat" for o in sensitive.items)
    many = [f"text {i} has art" for i in range(100)]
    capped = find_occurrences(many, "art", cap=5)
    assert capped.total == 100 and capped.capped and [o.text for o in capped.items] == [0, 25, 50, 74, 99]
    phrase = find_occurrences(["the  state\nof the art", "a state of mind"], "state of")
    assert phrase.total == 2


def test_word_that_never_occurs_is_a_clear_error():
    with pytest.raises(EmbeddingError, match=r"'zebra' does not occur in corpus.txt \(5 texts; whole words, ignoring case\)"):
        find_occurrences(TEXTS, "zebra", where="corpus.txt")
    with pytest.raises(EmbeddingError, match="enter a word"):
        find_occurrences(TEXTS, "  ")


def test_procrustes_recovers_a_known_rotation():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(50, 8))
    q, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    b = a @ q + 3.0
    aligned, rotation = procrustes_align(b, a)
    np.testing.assert_allclose(aligned, a, atol=1e-9)
    np.testing.assert_allclose(rotation, q.T, atol=1e-9)
    scaled, _ = procrustes_align(2.5 * a[:, :2] @ q[:2, :2] / np.linalg.norm(q[:2, :2], 2), a[:, :2], scale=True)
    assert np.abs(scaled - a[:, :2]).max() < np.abs(a[:, :2]).max()


def test_neighbours_kmeans_and_tsne_progress_and_cancel():
    rng = np.random.default_rng(1)
    x = np.vstack([rng.normal(0, 0.1, (15, 6)) + 5, rng.normal(0, 0.1, (15, 6)) - 5])
    near = nearest_neighbours(x, 0, 10)
    assert len(near) == 10 and all(j < 15 for j, _ in near) and near[0][1] >= near[-1][1]
    labels = kmeans(x, 2)
    assert len(set(labels[:15])) == 1 and len(set(labels[15:])) == 1 and labels[0] != labels[20]
    seen = []
    coords = project(x, "tsne", perplexity=5, iterations=250, progress=lambda d, t: seen.append((d, t)))
    assert coords.shape == (30, 2) and seen[-1] == (250, 250) and len(seen) > 2
    with pytest.raises(Cancelled):
        project(x, "tsne", perplexity=5, iterations=250, cancelled=lambda: True)
    if not umap_available():
        with pytest.raises(EmbeddingError, match="umap-learn"):
            project(x, "umap")


def test_space_projection_shared_over_layers_and_pairs(tiny):
    corpus = Corpus("c.txt", "text", TEXTS, [1, 2, 3, 4, 5], {"source": list("abcde")})
    space = space_of(tiny, corpus, word="cat")
    assert space.n_points == 4 and space.layers == [0, 1, 2] and space.columns["source"] == ["b", "c", "c", "e"]
    p0, shared = project_space(space, 0, "pca")
    p2, again = project_space(space, 2, "pca", shared=shared, clusters=2)
    assert again is shared and p0.coords.shape == (4, 2) and p2.static.shape == (2,) and len(p2.clusters) == 4
    from helpers import tiny_loaded_model

    other = space_of(tiny_loaded_model("classification", seed=3), corpus, word="cat")
    pair = pair_spaces(space, other, "A", "B")
    assert pair.n_points == 8 and pair.columns["model"] == ["A"] * 4 + ["B"] * 4
    turned = EmbeddingSpace(**{**space.__dict__, "vectors": space.vectors @ np.linalg.qr(np.random.default_rng(2).normal(size=(32, 32)))[0]})
    np.testing.assert_allclose(pair_spaces(space, turned, "A", "A rotated").vectors[:, 4:], space.vectors, atol=1e-4)


def _read_projector(folder, n_points):
    """Parse the files as the projector does: vectors.tsv = rows of tab-separated floats (no header);
    metadata.tsv = a header row, then one row per point (more than one column)."""
    rows = (folder / "vectors.tsv").read_text(encoding="utf-8").rstrip("\n").split("\n")
    vectors = np.array([[float(v) for v in r.split("\t")] for r in rows])
    lines = (folder / "metadata.tsv").read_text(encoding="utf-8").rstrip("\n").split("\n")
    header, meta = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    assert len(vectors) == len(meta) == n_points and all(len(m) == len(header) for m in meta)
    return vectors, header, meta


def test_projector_files_parse_as_the_projector_expects(tiny, tmp_path):
    texts = ["a cat\tsat", "the cat\non the mat", "cat"]
    space = space_of(tiny, Corpus("c.txt", "text", texts, [1, 2, 3], {"label": ["x", "y", "x"]}), word="cat")
    projection, _ = project_space(space, 1, "pca")
    files = export_space(space, tmp_path, 1, projection)
    vectors, header, meta = _read_projector(tmp_path, 4)   # 3 occurrences + the static embedding
    assert {"text", "word", "layer", "label"} <= set(header)
    np.testing.assert_allclose(vectors[:3], space.vectors[1], atol=1e-5)
    np.testing.assert_allclose(vectors[3], space.static, atol=1e-5)
    col = {h: [m[i] for m in meta] for i, h in enumerate(header)}
    assert col["text"][:2] == ["a cat\\tsat", "the cat\\non the mat"] and col["layer"] == ["1", "1", "1", "static"]
    assert col["label"] == ["x", "y", "x", ""] and col["word"] == ["cat"] * 4
    with open(files.coordinates, newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert len(table) == 4 and float(table[0]["x"]) == pytest.approx(float(projection.coords[0, 0]), abs=1e-4)
    assert table[0]["text"] == "a cat\tsat"
    assert "tensor_path: \"vectors.tsv\"" in (tmp_path / "projector_config.pbtxt").read_text()


def test_corpus_readers(tmp_path):
    from helpers import write_tiny_classification, write_tiny_squad

    table = write_tiny_classification(tmp_path / "d.tsv")
    corpus = read_corpus(table, text_column="sentence")
    assert corpus.kind == "table" and corpus.texts and set(corpus.columns) == {"label"}
    with pytest.raises(EmbeddingError.__mro__[1], match="not found"):
        read_corpus(table, text_column="nope")
    squad = read_corpus(write_tiny_squad(tmp_path / "s.json"))
    assert squad.kind == "squad" and len(squad.texts) == 4 and squad.columns["title"][0] == "Ada"
    (tmp_path / "t.txt").write_text("one line\n\n  two  \n", encoding="utf-8")
    text = read_corpus(tmp_path / "t.txt")
    assert text.texts == ["one line", "two"] and text.lines == [1, 3]
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"task": "sst2", "train": str(table), "text_columns": ["sentence"]}))
    assert read_corpus(run).texts == corpus.texts
    with pytest.raises(EmbeddingError, match="no such file"):
        read_corpus(tmp_path / "missing.txt")


def _cli(argv):
    from explorer.commands import embed

    parser = argparse.ArgumentParser(prog="bert-explorer embed")
    embed.add_arguments(parser)
    return embed.run(parser.parse_args(argv))


def test_cli_embed_writes_projector_files(tmp_path, capsys):
    from helpers import save_tiny_model

    model = save_tiny_model(tmp_path / "m", task="classification")
    data = tmp_path / "c.txt"
    data.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    assert _cli(["--model", str(model), "--data", str(data), "--word", "cat", "--layer", "all",
                 "--out", str(tmp_path / "out")]) == 0
    _, header, meta = _read_projector(tmp_path / "out", 4 * 3 + 1)
    assert sorted({m[header.index("layer")] for m in meta}) == ["0", "1", "2", "static"]
    assert _cli(["--model", str(model), "--data", str(data), "--pooling", "mean", "--out", str(tmp_path / "s")]) == 0
    vectors, _, _ = _read_projector(tmp_path / "s", 5)
    loaded = load_encoder(str(model))
    np.testing.assert_allclose(vectors, embed_sentences(loaded.model, loaded.tokenizer, TEXTS, "mean")[-1], atol=1e-5)
    assert _cli(["--model", str(model), "--data", str(data), "--word", "zebra", "--out", str(tmp_path / "z")]) == 2
    assert "error: 'zebra' does not occur" in capsys.readouterr().err


def test_fine_tuned_classifier_adds_predicted_labels(tiny):
    import dataclasses

    trained = dataclasses.replace(tiny, head_initialised=False)
    tiny.model.config.id2label = {0: "neg", 1: "pos"}
    space = space_of(trained, Corpus("d.tsv", "table", TEXTS, [2, 3, 4, 5, 6], {"label": list("01010")}),
                         pooling="mean", batch_size=2)
    with torch.no_grad():
        want = [tiny.model(**tiny.tokenizer(t, return_tensors="pt")).logits.argmax(-1).item() for t in TEXTS]
    assert space.columns["predicted"] == [["neg", "pos"][k] for k in want]
    np.testing.assert_allclose(space.vectors, embed_sentences(tiny.model, tiny.tokenizer, TEXTS, "mean"), atol=1e-5)
    assert "predicted" not in space_of(tiny, Corpus("d.tsv", "table", TEXTS, [1] * 5), pooling="cls").columns
