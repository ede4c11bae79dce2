"""pytest-qt: the Embeddings page (explorer/ui/inspectors/embeddings_view.py) driven against the inspector
server on a thread (tests/inspect_double.py) with tiny random models handed over."""

import numpy as np
import pytest

from explorer.ui.inspectors import client as client_module

TEXTS = ["the cat sat on the mat", "a cat in the city", "the river cat was born in paris",
         "what cat is this", "no match in concatenate", "the cat and the other cat"]


@pytest.fixture
def page(qtbot, tmp_path):
    from helpers import tiny_loaded_model

    from explorer.ui.inspectors.embeddings_view import EmbeddingsView

    shared = client_module.shared_client()
    shared.adopt("embed", tiny_loaded_model("classification"))
    shared.adopt("embed_b", tiny_loaded_model("classification", seed=5))
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("text\tsource\n" + "".join(f"{t}\t{'ab'[i % 2]}\n" for i, t in enumerate(TEXTS)), encoding="utf-8")
    view = EmbeddingsView()
    qtbot.addWidget(view)
    view.resize(1280, 760)
    view.model.setText("tiny:random")
    view.corpus.setText(str(corpus))
    view.word.setText("cat")
    return view


def test_word_in_context_map_layers_neighbours_and_exports(qtbot, page, tmp_path):
    with qtbot.waitSignals([page.space_ready, page.drawn], timeout=30000):
        page.embed()
    s = page.summary
    assert s.n_points == 6 and s.layers == [0, 1, 2] and s.has_static and s.columns["source"][0] == "a"
    assert page.projection.coords.shape == (6, 2) and page.projection.layer == 2
    assert page.static_item.points().size == 1 and "input embedding" in page.static_label.textItem.toPlainText()
    page.show_static.setChecked(False)
    assert page.static_item.points().size == 0
    page.show_static.setChecked(True)
    assert page.scatter.opts["pxMode"] and len(page.scatter.points()) == 6
    page.show_point(1)
    assert "<b style='background:#ffe066'>cat</b>" in page.hover.text()
    with qtbot.waitSignal(page.drawn, timeout=30000) as moved:
        page.layer.setValue(0)
    assert moved.args[0].layer == 0 and page.layer_label.text().startswith("layer 0 (input embeddings)")
    with qtbot.waitSignal(page.neighbours_ready, timeout=10000) as near:
        page.select(0)
    assert len(near.args[0]) == 5 and page.neighbours.count() == 5 and near.args[0][0][1] >= near.args[0][-1][1]
    with qtbot.waitSignal(page.drawn, timeout=30000) as by_k:
        page.colour.setCurrentText("k-means clusters")
    assert len(by_k.args[0].clusters) == 6 and "k-means cluster" in page.legend.text()
    with qtbot.waitSignal(page.drawn, timeout=30000) as every:
        page.colour.setCurrentText("layer")
    assert every.args[0].point_layers == [0] * 6 + [1] * 6 + [2] * 6 and len(page.scatter.points()) == 18
    with qtbot.waitSignal(page.exported, timeout=10000) as wrote:
        page.export_to(str(tmp_path / "proj"))
    assert {"vectors", "metadata", "config", "coordinates"} <= set(wrote.args[0])
    rows = (tmp_path / "proj" / "vectors.tsv").read_text().strip().split("\n")
    assert len(rows) == 3 * 6 + 1 and len(rows[0].split("\t")) == 32
    assert page.save_image(str(tmp_path / "map.png")) and (tmp_path / "map.png").stat().st_size > 1000
    page.save_image(str(tmp_path / "map.svg"))
    assert "<svg" in (tmp_path / "map.svg").read_text(encoding="utf-8")[:2000]


def test_before_after_in_one_map_and_errors(qtbot, page):
    page.model_b.setText("tiny:random")
    with qtbot.waitSignal(page.drawn, timeout=30000):
        page.embed()
    assert page.summary.n_points == 12 and page.colour.currentText() == "model"
    assert page.summary.columns["model"] == ["A: tiny:random"] * 6 + ["B: tiny:random"] * 6
    assert "Procrustes" in page.notes.text() and "A: tiny:random" in page.legend.text()
    page.word.setText("zebra")
    page.model_b.setText("")
    page.embed()
    qtbot.waitUntil(lambda: "does not occur" in page.status.text(), timeout=10000)
    assert page.embed_button.isEnabled() and not page.job_bar.isVisibleTo(page)


def test_sentences_mode_pools_each_text(qtbot, page):
    page.mode.setCurrentText("sentences")
    assert not page.word.isEnabled() and page.pooling.isEnabled()
    page.pooling.setCurrentText("mean")
    with qtbot.waitSignal(page.drawn, timeout=30000):
        page.embed()
    assert page.summary.mode == "sentences" and page.summary.n_points == 6 and not page.summary.has_static
    assert np.isfinite(page.projection.coords).all() and page.static_item.points().size == 0
