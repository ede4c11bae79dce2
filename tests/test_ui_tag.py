"""The Tag page offscreen: a tiny token-classification model tags a typed sentence in the inspector child
(thread double), the heat strip, the highlighted entities and the head written out with its by-hand check;
Tag: dev set filled in from a ner run."""

import pytest
from helpers import tiny_loaded_model

from explorer.ui.inspectors.components.tag import entity_types, highlighted_html
from explorer.ui.inspectors.tag_view import TagView

TAGS = ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]


@pytest.fixture
def view(qtbot):
    v = TagView()
    qtbot.addWidget(v)
    return v


def test_tag_page_renders_probabilities_entities_and_head(qtbot, view):
    import torch

    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    with torch.no_grad():
        loaded.model.classifier.bias[1] += 6.0    # every word starts a LOC entity
    view.set_loaded(loaded)
    view.sentence.setText("ada was born in london")
    view.result = None
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    tagged, head = view.result["tagged"], view.result["head"]
    assert view.heat.matrix.shape == (5, 5) and tagged.tags == ["B-LOC"] * 5
    assert head.index == 1 and head.max_abs_diff < 1e-5   # the first word's first piece, after [CLS]
    text = view.text.toPlainText()
    assert "logits_i = T_i Wᵀ + b" in text and "by-hand check" in text and "B-LOC" in text
    assert text.startswith("word 1 'ada'")
    assert view.marked.text().count("<span") == 5 and "LOC" in view.status.text()


class _Click:
    """A left click at a scene position, as pyqtgraph's scene hands it to the map."""

    def __init__(self, pos):
        self.pos = pos

    def button(self):
        from PySide6.QtCore import Qt

        return Qt.MouseButton.LeftButton

    def scenePos(self):  # noqa: N802 - pyqtgraph API
        return self.pos


def test_a_click_or_a_key_on_a_words_row_writes_out_that_words_arithmetic_without_a_forward_pass(qtbot, view):
    """A click on a row of the map, Up / Down on the focused map and the Word box (words counted from 1, as the
    rows) all show that word's head from the result held: its first piece's T_i W^T + b, equal to the model's
    logits, the row highlighted and the Word box in step; no request goes to the child."""
    import numpy as np
    from PySide6.QtCore import Qt

    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    view.set_loaded(loaded)
    view.resize(900, 600)
    view.show()
    view.result = None
    view.sentence.setText("ada lovelace was born in london")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    res, tagged = view.result, view.result["tagged"]
    assert view.word.minimum() == 1 and view.word.maximum() == len(tagged.words) == 6
    asked = []
    view._runner.submit = lambda *a, **k: asked.append(a)

    def shown_word() -> tuple[int, int]:
        first = view.text.toPlainText().splitlines()[0]
        piece = int(view.text.toPlainText().splitlines()[1].split()[1])
        return int(first.split()[1]), piece

    view.heat._on_mouse_clicked(_Click(view.heat.scene_pos_of(3, 2)))   # the 4th word, "born"
    assert view.word.value() == 4 and shown_word()[0] == 4
    assert view.text.toPlainText().startswith("word 4 'born'")
    assert view.heat.row_marker.isVisible() and view.heat.hover_label.textItem.toPlainText() == view.heat.left_axis.labels[3]
    piece = shown_word()[1]
    assert list(tagged.piece_words).index(3) == piece
    by_hand = tagged.hidden[piece] @ res["head"].W.T + res["head"].b
    assert np.allclose(by_hand, tagged.piece_logits[piece], atol=1e-5)
    assert f"{by_hand[1]:+.4f}" in view.text.toPlainText()
    qtbot.keyClick(view.heat, Qt.Key.Key_Down)
    assert view.word.value() == 5 and view.text.toPlainText().startswith("word 5 'in'")
    qtbot.keyClick(view.heat, Qt.Key.Key_Up)
    qtbot.keyClick(view.heat, Qt.Key.Key_Up)
    assert view.word.value() == 3 and view.text.toPlainText().startswith("word 3 'was'")
    assert asked == [] and view.result is res
    from PySide6.QtCore import QEvent

    view.heat.leaveEvent(QEvent(QEvent.Type.Leave))   # the mouse leaves the map: the chosen word stays marked
    assert view.heat.row_marker.isVisible()
    assert view.heat.hover_label.textItem.toPlainText() == view.heat.left_axis.labels[2]


def test_the_word_box_counts_words_from_one_and_up_steps_one_word(qtbot, view):
    """The Word box starts at the first word (1) and each Up is the next word: Up twice from word 1 is word 3."""
    from PySide6.QtCore import Qt

    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    view.set_loaded(loaded)
    view.result = None
    view.sentence.setText("ada was born in london")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.word.value() == 1
    qtbot.keyClick(view.word, Qt.Key.Key_Up)
    assert view.word.value() == 2 and view.text.toPlainText().startswith("word 2 'was'")
    qtbot.keyClick(view.word, Qt.Key.Key_Up)
    assert view.word.value() == 3 and view.text.toPlainText().startswith("word 3 'born'")


def test_highlight_html_by_type():
    from explorer.core.tagging.alignment import Entity

    html = highlighted_html("Ada in <Paris>", [Entity("PER", 0, 0, 0, 3, "Ada"), Entity("LOC", 2, 2, 8, 13, "Paris")],
                            TAGS)
    assert html.startswith('<span style="background:') and "&lt;" in html and "<sub> LOC</sub>" in html
    assert entity_types(TAGS) == ["LOC", "PER"]


def test_no_model_says_so(view):
    view.run()
    assert "no model loaded" in view.status.text()


def test_tagging_checkpoint_is_recognised(tmp_path):
    from explorer.ui.inspectors.components.tag import is_tagging_checkpoint

    (tmp_path / "config.json").write_text('{"architectures": ["BertForTokenClassification"]}', encoding="utf-8")
    assert is_tagging_checkpoint(str(tmp_path)) and not is_tagging_checkpoint(str(tmp_path / "none"))


def test_dev_view_scores_a_file_and_a_mistake_opens_on_the_tag_page(qtbot, tmp_path):
    from helpers import tag_pages, tiny_tagger, write_tiny_conll

    view, dev = tag_pages(qtbot)
    loaded = tiny_tagger()
    view.set_loaded(loaded)
    dev.path.setText(str(write_tiny_conll(tmp_path / "dev.txt")))
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    rep = dev.report
    assert rep.n_sentences == 4 and dev.confusion.rowCount() == 4 and dev.confusion.columnCount() == 4
    assert int(rep.confusion[:3].sum()) == 4   # each of the 4 gold entities: matched, mistyped or missed
    assert len(rep.mistakes) == dev.mistakes.rowCount() > 0
    confid = [m.confidence for m in rep.mistakes]
    assert confid == sorted(confid, reverse=True)
    view.result = None
    dev._open_row(0, 0)
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.sentence.text() == rep.mistakes[0].text


def test_tag_page_and_its_wire_classes_import_without_torch():
    """The GUI rebuilds TaggedText / TokenHead / TagDevReport from the pipe: their modules must not pull in torch."""
    import subprocess
    import sys

    code = ("import sys, explorer.ui.inspectors.tag_view, explorer.core.tagging.forward, explorer.core.tagging.alignment; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_dev_view_caps_the_sentences_and_reports_progress(qtbot, tmp_path):
    from helpers import tag_pages, tiny_tagger, write_tiny_conll

    view, dev = tag_pages(qtbot)
    loaded = tiny_tagger()
    view.set_loaded(loaded)
    reports = []
    dev._job.progress.connect(lambda done, total: reports.append((done, total)))
    dev.path.setText(str(write_tiny_conll(tmp_path / "dev.txt")))
    dev.cap.setValue(2)
    dev.run()
    qtbot.waitUntil(lambda: dev.report is not None, timeout=30000)
    assert dev.report.n_sentences == 2
    assert (2, 2) in reports and dev.job_bar.detail.text().startswith("2 of 2 windows"), reports


def test_head_lines_are_a_table_that_fits_beside_the_heat_strip():
    import numpy as np

    from explorer.core.tagging.forward import TokenHead
    from explorer.ui.inspectors.tag_view import head_lines

    rng = np.random.default_rng(0)
    W, T, b = rng.normal(size=(9, 4)), rng.normal(size=4), rng.normal(size=9) * 0.01
    z = W @ T + b
    names = ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]
    lines = head_lines(TokenHead(1, "eu", T, W, b, z, z, 0.0, np.exp(z) / np.exp(z).sum(), names))
    assert max(len(line) for line in lines) <= 50   # fits the head panel beside the strip
    row = next(line for line in lines if line.lstrip().startswith("B-MISC"))
    assert f"{T @ W[3]:+.4f}" in row and f"{z[3]:+.4f}" in row


def test_a_fresh_tag_page_tags_its_default_sentence_when_a_model_comes(qtbot, view):
    """The Tag page with no example open is not empty: it holds a CoNLL-like sentence from the
    start, tags it as soon as a model is loaded, and an emptied sentence asks for one."""
    from explorer.ui.inspectors.tag_view import DEFAULT_SENTENCE

    assert view.sentence.text() == DEFAULT_SENTENCE and "Open best checkpoint" in view.status.text()
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    view.set_loaded(loaded)                                  # no run(): the page tags what it shows
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.result["tagged"].text == DEFAULT_SENTENCE and view.heat.matrix.shape == (9, 5)
    assert "9 words" in view.status.text()
    view.sentence.clear()
    view.run()
    assert view.status.text().startswith("Type a sentence to tag, e.g. EU rejects")


def test_open_best_checkpoint_of_a_ner_run_tags_its_first_dev_sentence(qtbot, tmp_path, view):
    """A tagging run's checkpoint opens on the Tag page with the run's first dev sentence, tagged once the model
    is in (not the default sentence)."""
    from helpers import save_tiny_model, write_tiny_conll

    from explorer.ui.inspectors.tag_view import DEFAULT_SENTENCE, TagPages
    from explorer.ui.runs.examples import first_tagging_sentence

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "token_classification", num_labels=5)
    dev = write_tiny_conll(tmp_path / "dev.conll")
    config = {"task": "ner", "dev": str(dev)}
    first = first_tagging_sentence(config)
    assert first and first != DEFAULT_SENTENCE and first.split()[0] == dev.read_text().split()[0]
    TagPages([("Tag", view)]).open_checkpoint("Tag", str(ckpt), "ner", config)
    qtbot.waitUntil(lambda: view.result is not None and view.result["tagged"].text == first, timeout=30000)
    assert view.sentence.text() == first


def test_tag_dev_set_is_filled_in_from_the_ner_run(qtbot, tmp_path):
    """A ner run's checkpoint opened fills in Tag: dev set, as a classifier's run fills in Classify: dev set: it
    gets the run's dev file and Dev cap; a file the user typed stays."""
    from helpers import save_tiny_model, write_tiny_conll

    from explorer.ui.inspectors.tag_view import TagPages, tag_tabs

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "token_classification", num_labels=5)
    (tmp_path / "conll2003").mkdir()
    dev = write_tiny_conll(tmp_path / "conll2003" / "valid.txt")
    pages = tag_tabs()
    view, dev_view = pages[0][1], pages[1][1]
    for _title, page in pages:
        qtbot.addWidget(page)
    TagPages(pages).open_checkpoint("Tag", str(ckpt), "ner", {"task": "ner", "dev": str(dev), "dev_cap": 300})
    assert dev_view.path.text() == str(dev) and dev_view.cap.value() == 300
    qtbot.waitUntil(lambda: view.loaded is not None, timeout=30000)
    # another run without a dev file: the previous run's file goes; a file the user typed stays
    assert not dev_view.prefill_from_run({"task": "ner", "dev": ""}) and dev_view.path.text() == ""
    dev_view.path.setText(str(tmp_path / "mine.conll"))
    assert not dev_view.prefill_from_run({"task": "ner", "dev": str(dev)})
    assert dev_view.path.text() == str(tmp_path / "mine.conll")


def test_the_tag_page_splits_by_the_rule_the_model_was_trained_with_and_says_so(qtbot, view, tmp_path):
    """A model whose run recorded the conll rule keeps AL-AIN and 1996-12-06 whole on the Tag page, and the
    status names the rule."""
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    loaded.model.config.word_splitting = "conll"
    view.set_loaded(loaded)
    view.result = None
    view.tag("AL-AIN , United Arab Emirates 1996-12-06")
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.result["tagged"].words == ["AL-AIN", ",", "United", "Arab", "Emirates", "1996-12-06"]
    assert "words by the conll rule" in view.status.text()
    view.resize(1100, 700)
    view.show()
    view.grab().save(str(tmp_path / "tag_page_conll_words.png"))


def test_the_dev_confusion_matrix_cuts_an_entity_type_of_a_paragraph(qtbot):
    """An entity type named by a paragraph (a broken line in the training file) is cut in the type confusion
    matrix's row and column titles, whole in their tooltips: the titles never push the counts out of view."""
    import numpy as np

    from explorer.core.tagging.alignment import TagDevReport
    from explorer.ui.inspectors.tag_view import TagDevView

    long_type = "a whole paragraph of text that became an entity type " * 30
    types = ["PER", long_type, "O"]
    rep = TagDevReport(source="dev.conll", n_sentences=3, f1=0.5, precision=0.5, recall=0.5, token_accuracy=0.5,
                       per_type={t: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2} for t in types[:2]},
                       confusion_rows=types, confusion_cols=types, confusion=np.ones((3, 3), dtype=int), mistakes=[])
    view = TagDevView(TagView())
    qtbot.addWidget(view)
    view.show_report(rep, model="m", data="dev.conll")
    view.resize(884, 660)
    view.show()
    qtbot.waitExposed(view)
    table = view.confusion
    assert len(table.verticalHeaderItem(1).text()) <= 40 and table.verticalHeaderItem(1).toolTip() == long_type
    assert table.horizontalHeaderItem(1).toolTip() == long_type
    assert table.verticalHeader().width() <= 400 and table.columnWidth(1) <= 400


def test_the_tag_heat_maps_row_axis_keeps_long_words_whole_or_cuts_them_in_the_middle_with_a_tooltip(qtbot):
    """A word with its tag ("LEICESTERSHIRE (B-LOC)") is drawn whole: the axis is as wide as it needs; a longer
    label is cut in its middle (its start and its tag stay) at the axis's cap, the whole label the tooltip of its row."""
    import numpy as np
    from PySide6.QtGui import QFont, QFontMetricsF

    from explorer.ui.inspectors.heatmap import MAX_LABEL_PX, TokenHeatmap

    heat = TokenHeatmap()
    qtbot.addWidget(heat)
    heat.resize(600, 300)
    heat.show()
    qtbot.waitExposed(heat)
    long_one = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch (B-LOC)"
    rows = ["LEICESTERSHIRE (B-ORG)", "beat (O)", long_one]
    heat.set_matrix(np.full((3, 2), 0.5), rows, ["O", "B-LOC"], levels=(0.0, 1.0))
    axis = heat.left_axis
    assert axis._text(0) == "LEICESTERSHIRE (B-ORG)" and not axis.cut(0)
    shown = axis._text(2)
    assert axis.cut(2) and shown.startswith("Llanfair") and shown.endswith("(B-LOC)") and "…" in shown
    fm = QFontMetricsF(axis.style.get("tickFont") or QFont())   # the width the axis asks its layout for:
    assert fm.horizontalAdvance(rows[0]) <= axis.minimumWidth() <= MAX_LABEL_PX + 40
    heat._on_mouse_moved(heat.scene_pos_of(2, 0))
    assert heat.toolTip() == long_one
    heat._on_mouse_moved(heat.scene_pos_of(0, 0))
    assert heat.toolTip() == ""


def test_a_sentence_typed_while_a_ner_checkpoint_loads_is_kept_and_tagged_by_it(qtbot, tmp_path, view, monkeypatch):
    """A tagging run's checkpoint still loading: the sentence the person typed meanwhile is kept when the run's dev
    sentence arrives and tagged by the new model once it is in; a sentence the page filled is replaced."""
    from helpers import save_tiny_model, write_tiny_conll

    from explorer.ui.runs.examples import first_tagging_sentence

    ckpt = save_tiny_model(tmp_path / "run" / "checkpoints" / "best", "token_classification", num_labels=5)
    config = {"task": "ner", "dev": str(write_tiny_conll(tmp_path / "dev.conll"))}
    monkeypatch.setattr(view._loader, "submit", lambda *a, **k: setattr(view._loader, "_outstanding", True))
    view.open_checkpoint(str(ckpt))                          # the load is asked, not finished
    assert view.loading
    view.sentence.clear()
    typed = "Ada Lovelace lived in London"
    qtbot.keyClicks(view.sentence, typed)
    view.fill_sentence(first_tagging_sentence(config))      # the run's dev sentence arrives meanwhile
    assert view.sentence.text() == typed and "typed sentence was kept" in view.status.text()
    view._loader._outstanding = False
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    view.set_loaded(loaded)
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    assert view.sentence.text() == typed and view.result["tagged"].text == typed
    first = first_tagging_sentence(config)
    view.tag("EU rejects German call")                      # a sentence the page filled (a dev mistake opened)
    view.fill_sentence(first)
    assert view.sentence.text() == first
