"""The Explain page's Qt-free model (explorer/ui/inspectors/components/explain.py) and the attribution colours it
shares with the saliency page (components/saliency.py): the fields each task takes, the request they make, the
targets offered. No window, no qtbot."""

import pytest

from explorer.ui.inspectors.components.explain import explain_fields, explain_request, target_choices
from explorer.ui.inspectors.components.saliency import colour

FIELDS = dict(text="ada was born", text_pair="where?", endings=["a", "b", "c", "d"], target="margin", method="ig",
              steps=40, merge_words=True, token=3, end=5)


def test_attributions_are_red_up_blue_down_by_their_share_of_the_largest():
    assert colour(1.0, 2.0) == "background: rgba(214,39,40,0.50);"
    assert colour(-4.0, 2.0) == "background: rgba(31,119,180,1.00);"
    assert colour(0.3, 0.0).endswith("0.00);")


@pytest.mark.parametrize("task, pair, endings, token, end", [
    ("single", False, False, False, False),
    ("pair", True, False, False, False),
    ("swag", True, True, False, False),
    ("squad_v2", True, False, True, True),
    ("ner", False, False, True, False),
])
def test_each_task_takes_its_fields_and_sends_only_those(task, pair, endings, token, end):
    f = explain_fields(task)
    assert (f.pair, f.endings, f.token, f.end) == (pair, endings, token, end)
    data = explain_request(task, **FIELDS)
    assert data["text"] == "ada was born" and data["steps"] == 40 and data["merge_words"]
    assert data["text_pair"] == ("where?" if pair else "")
    assert ("endings" in data) == endings and ("token" in data) == token and ("end" in data) == end
    assert data["max_seq_length"] > 0


def test_fields_are_named_for_the_task():
    assert (explain_fields("squad_v2").name_a, explain_fields("squad_v2").name_b) == ("Question", "Passage")
    assert explain_fields("squad_v2").token_name == "start" and explain_fields("ner").token_name == "token"
    assert explain_fields("swag").name_b == "Start of the endings"
    assert explain_fields("pair").placeholder_b == "optional: a second text"


def test_targets_follow_the_head():
    assert target_choices("regression", []) == [("the score", "score")]
    assert [v for _, v in target_choices("squad_v2", [])] == ["span", "start", "end", "score_diff"]
    assert [v for _, v in target_choices("squad_v1", [])] == ["span", "start", "end"]    # never abstains
    pair = target_choices("pair", ["neg", "pos"])
    assert pair[:2] == [("predicted class", ""), ("margin: predicted class vs runner-up", "margin")]
    assert ("margin: pos vs the best other", "margin:1") in pair
    assert [v for _, v in target_choices("swag", [])][2:] == ["0", "1", "2", "3"]
