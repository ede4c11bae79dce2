"""The Embeddings page's Qt-free model (explorer/ui/inspectors/components/embeddings.py): the request check, which
map the choices need, the points' colours and legend, and the hover, neighbour and status texts, on plain
stand-ins for the child's summary and maps. No window, no qtbot."""

from types import SimpleNamespace

import numpy as np

from explorer.ui.inspectors.components.embeddings import (BY_LAYER, KMEANS, NO_COLOUR, ONE_COLOUR, OTHER, PALETTE,
                                                          categorical_colours, colour_choices, layer_label,
                                                          map_key, map_running_text, map_status, neighbour_items,
                                                          point_colours, point_html, point_index, request_problem,
                                                          space_notes, space_status)


def summary(**kw):
    base = dict(n_points=3, layers=[0, 3, 6], pooling="mean", mode="word", word="bank", source="/data/texts.csv",
                model="bundled:minilm", hidden=384, notes=["3 occurrences"],
                texts=["the river bank", "a bank loan", "bank on it"], starts=[10, 2, 0], ends=[14, 6, 4],
                columns={"topic": ["river", "money", "money"]})
    base.update(kw)
    return SimpleNamespace(**base)


def projection(**kw):
    base = dict(coords=np.zeros((3, 2)), point_layers=None, clusters=None, layer=6, method="pca", static=None)
    base.update(kw)
    return SimpleNamespace(**base)


def test_frequent_values_get_the_palette_and_the_rest_one_grey():
    values = [f"v{k}" for k in range(12) for _ in range(12 - k)]   # v0 most frequent ... v11 least
    colours, legend = categorical_colours(values)
    assert colours[0] == PALETTE[0] and colours[-1] == OTHER
    assert [v for v, _, _ in legend[:len(PALETTE)]] == [f"v{k}" for k in range(len(PALETTE))]
    assert legend[-1] == ("2 other values", OTHER, 2 + 1)


def test_a_request_needs_a_corpus_and_in_word_mode_a_word():
    assert request_problem({"path": "", "word": "x"}, "word in context") == "Choose a corpus file first."
    assert request_problem({"path": "a.txt", "word": ""}, "word in context").startswith("Enter the word")
    assert request_problem({"path": "a.txt", "word": ""}, "sentences") == ""


def test_the_map_needed_follows_layer_colouring_and_clusters():
    s = summary()
    assert map_key(s, "topic", 1, "pca", 4) == (3, "pca", 0)
    assert map_key(s, KMEANS, 9, "tsne", 5) == (6, "tsne", 5)          # the slider past the end: the last layer
    assert map_key(s, BY_LAYER, 0, "pca", 4) == ("all", "pca", 0)
    assert map_running_text(("all", "pca", 0)).endswith("of every layer …")
    assert map_running_text((3, "pca", 0)).endswith("of layer 3 …")
    assert colour_choices(s) == [NO_COLOUR, "topic", KMEANS, BY_LAYER]


def test_layers_are_named_input_embeddings_pooler_or_of_the_last():
    assert layer_label(summary(), 0) == "layer 0 (input embeddings)"
    assert layer_label(summary(), 1) == "layer 3 (of 6)"
    assert layer_label(summary(pooling="pooler"), 2) == "layer 6 (pooler)"


def test_points_are_coloured_by_the_chosen_column_clusters_or_layer():
    s = summary()
    colours, legend = point_colours(s, projection(), "topic")
    assert colours == [PALETTE[1], PALETTE[0], PALETTE[0]]           # money (2) first, then river
    assert legend.startswith("<b>topic</b><br>") and "money (2)" in legend
    every = projection(coords=np.zeros((6, 2)), point_layers=[0, 0, 0, 6, 6, 6], layer=-1)
    colours, legend = point_colours(s, every, "topic")               # every layer: the column repeats
    assert len(colours) == 6 and colours[:3] == colours[3:]
    _, legend = point_colours(s, every, BY_LAYER)
    assert legend.startswith("<b>layer</b>")
    _, legend = point_colours(s, projection(clusters=np.array([1, 0, 1])), KMEANS)
    assert "cluster 2 (2)" in legend
    assert point_colours(s, projection(), NO_COLOUR) == ([ONE_COLOUR] * 3, "")


def test_a_hovered_point_shows_its_sentence_word_and_columns():
    s = summary()
    every = projection(coords=np.zeros((6, 2)), point_layers=[0, 0, 0, 6, 6, 6], layer=-1)
    assert point_index(s, 4) == 1
    text = point_html(s, every, 4)
    assert "a <b style='background:#ffe066'>bank</b> loan" in text
    assert text.endswith("point 2, layer 6; topic: money</span>")
    assert "layer" not in point_html(s, projection(), 1).split("point 2")[1]


def test_neighbours_name_their_word_and_point_in_the_drawn_layer():
    s = summary(columns={"model": ["A", "B", "A"]})
    items = neighbour_items(s, [(2, 0.9), (0, 0.5)], offset=3)
    assert items == [("0.900  [bank] on it  [A]", 5), ("0.500  the river [bank]  [A]", 3)]


def test_status_lines_say_what_was_embedded_and_drawn():
    s = summary()
    assert space_status(s) == "3 points of 'bank' from texts.csv (bundled:minilm)"
    assert space_status(summary(mode="sentences")) == "3 points of texts pooled by mean from texts.csv (bundled:minilm)"
    assert space_notes(s) == "3 occurrences. 384 dimensions."
    assert map_status(projection(layer=-1)).endswith("of every layer: 3 points")
