"""scripts/balance_squad_v2.py: a SQuAD 2.0 training file with a chosen share of unanswerable questions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers import tiny_squad_dict, write_tiny_squad

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import balance_squad_v2 as balance  # noqa: E402


def _qas(squad: dict) -> list[dict]:
    return [qa for art in squad["data"] for par in art["paragraphs"] for qa in par["qas"]]


def test_unanswerable_questions_repeated_with_unique_ids_and_answerable_sampled_to_the_share():
    squad = tiny_squad_dict(v2=True, repeat=3)            # 42 questions, 12 unanswerable
    out = balance.balance(squad, no_answer_share=0.5, repeat=2, seed=0)
    qas = _qas(out)
    no = [qa for qa in qas if qa["is_impossible"]]
    assert len(no) == 24 and len(qas) - len(no) == 24      # 12 x 2 unanswerable, as many answerable
    assert len({qa["id"] for qa in qas}) == len(qas)
    assert balance.counts(out) == {"questions": 48, "unanswerable": 24, "share": 0.5}
    originals = {qa["id"]: qa for qa in _qas(squad)}
    for qa in qas:                                         # every question is one of the input's, unchanged
        source = originals[qa["id"].split("_n")[0]]
        assert {**qa, "id": source["id"]} == source
    assert _qas(squad) == _qas(tiny_squad_dict(v2=True, repeat=3))   # the input is left as it was


def test_too_few_answerable_questions_keeps_them_all_and_seed_picks_the_sample():
    squad = tiny_squad_dict(v2=True)                       # 14 questions, 4 unanswerable
    every = balance.balance(squad, no_answer_share=0.1, repeat=1, seed=0)
    assert balance.counts(every)["questions"] == 14
    a = {qa["id"] for qa in _qas(balance.balance(squad, no_answer_share=0.5, repeat=1, seed=1))}
    assert a == {qa["id"] for qa in _qas(balance.balance(squad, no_answer_share=0.5, repeat=1, seed=1))}
    assert len(a) == 8


@pytest.mark.parametrize("kwargs, words", [({"no_answer_share": 1.0, "repeat": 2}, "between 0 and 1"),
                                           ({"no_answer_share": 0.5, "repeat": 0}, "at least 1")])
def test_bad_settings_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        balance.balance(tiny_squad_dict(v2=True), seed=0, **kwargs)


def test_main_writes_the_file_and_refuses_a_file_without_unanswerable_questions(tmp_path, capsys):
    src = write_tiny_squad(tmp_path / "train.json", v2=True)
    assert balance.main(["--train", str(src), "--out", str(tmp_path / "o" / "b.json"), "--repeat", "2"]) == 0
    written = json.loads((tmp_path / "o" / "b.json").read_text(encoding="utf-8"))
    assert balance.counts(written)["unanswerable"] == 8
    assert json.loads(capsys.readouterr().out)["written"]["unanswerable"] == 8
    v1 = write_tiny_squad(tmp_path / "v1.json", v2=False)
    assert balance.main(["--train", str(v1), "--out", str(tmp_path / "x.json")]) == 2
    assert "no unanswerable question" in capsys.readouterr().err
