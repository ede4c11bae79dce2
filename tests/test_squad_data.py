"""SQuAD loading and validation (explorer.core.data.squad)."""

import json

import pytest

from explorer.core.data.squad import SquadDataError, gold_answers, load_squad, squad_version
from explorer.core.metrics.squad import squad_evaluate

CTX = "Ada Lovelace was born in London in 1815. London is a city."


def v1_data():
    return {"version": "1.1", "data": [{"title": "Ada", "paragraphs": [{"context": CTX, "qas": [
        {"id": "q1", "question": "Where was Ada born?",
         "answers": [{"text": "London", "answer_start": 25}, {"text": "in London", "answer_start": 22}]},
        {"id": "q2", "question": "When was Ada born?", "answers": [{"text": "1815", "answer_start": 35}]},
    ]}]}]}


def v2_data():
    d = v1_data()
    d["version"] = "v2.0"
    qas = d["data"][0]["paragraphs"][0]["qas"]
    for q in qas:
        q["is_impossible"] = False
    qas.append({"id": "q3", "question": "Where did Ada die?", "answers": [], "is_impossible": True,
                "plausible_answers": [{"text": "London", "answer_start": 25}]})
    return d


def write(tmp_path, data, name="d.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def test_v11_file(tmp_path):
    ds, report = load_squad(str(write(tmp_path, v1_data())))
    assert ds.column_names == ["id", "title", "context", "question", "answers", "is_impossible"]
    assert len(ds) == 2 and report.version == "v1.1" and report.n_articles == 1
    assert ds[0]["answers"] == {"text": ["London", "in London"], "answer_start": [25, 22]}
    assert ds[0]["title"] == "Ada" and ds[0]["context"] == CTX and ds[0]["is_impossible"] is False
    assert report.problems == [] and report.n_answers == 3
    assert gold_answers(ds) == {"q1": ["London", "in London"], "q2": ["1815"]}
    assert squad_version(ds) == "v1.1"
    assert "2 questions (0 unanswerable)" in report.summary()


def test_v20_file(tmp_path):
    ds, report = load_squad(str(write(tmp_path, v2_data())))
    assert report.version == "v2.0" and report.n_questions == 3 and report.n_impossible == 1
    assert ds[2]["answers"] == {"text": [], "answer_start": []} and ds[2]["is_impossible"] is True
    assert gold_answers(ds)["q3"] == [] and squad_version(ds) == "v2.0"


def test_malformed_json_names_line_and_column(tmp_path):
    text = json.dumps(v1_data(), indent=1).replace('"q2"', '"q2",,', 1)
    line = next(k + 1 for k, ln in enumerate(text.splitlines()) if '"q2",,' in ln)
    with pytest.raises(SquadDataError, match=rf"d\.json: malformed JSON at line {line}, column \d+"):
        load_squad(str(write(tmp_path, text)))


def test_missing_fields_strict_and_lenient(tmp_path):
    d = v1_data()
    del d["data"][0]["paragraphs"][0]["qas"][1]["question"]
    d["data"][0]["paragraphs"][0]["qas"].append({"question": "no id?", "answers": []})
    p = write(tmp_path, d)
    with pytest.raises(SquadDataError) as err:
        load_squad(str(p))
    msg = str(err.value)
    assert "2 invalid question records" in msg
    assert "article 0 ('Ada'), paragraph 0, question 1 id 'q2': missing field 'question'" in msg
    assert "paragraph 0, question 2: missing field 'id'" in msg
    assert "skip them with `bert-explorer eval --skip-invalid` / strict=False (Python)" in msg and "load with" not in msg
    ds, report = load_squad(str(p), strict=False)
    assert ds["id"] == ["q1"] and report.n_skipped == 2
    assert sum(pr.startswith("skipped:") for pr in report.problems) == 2
    assert "2 records skipped" in report.summary() and "1 article," in report.summary()


def test_one_invalid_record_is_singular(tmp_path):
    d = v1_data()
    del d["data"][0]["paragraphs"][0]["qas"][1]["question"]
    p = write(tmp_path, d)
    with pytest.raises(SquadDataError) as err:
        load_squad(str(p))
    msg = str(err.value)
    assert ": 1 invalid question record:\n" in msg and "record(s)" not in msg
    assert "skip it with `bert-explorer eval --skip-invalid` / strict=False (Python)" in msg
    ds, report = load_squad(str(p), strict=False)
    assert len(ds) == 1
    assert report.summary() == (f"{p}: SQuAD v1.1, 1 article, 1 question (0 unanswerable), 2 gold answers; "
                                "1 problem, 1 record skipped")


def test_structural_errors(tmp_path):
    with pytest.raises(SquadDataError, match="expected an object with a 'data' list"):
        load_squad(str(write(tmp_path, [1, 2])))
    d = {"data": [{"title": "T"}]}
    with pytest.raises(SquadDataError, match="article 0 \\('T'\\): missing field 'paragraphs'"):
        load_squad(str(write(tmp_path, d)))
    with pytest.raises(SquadDataError, match="no such file"):
        load_squad(str(tmp_path / "nope.json"))
    with pytest.raises(SquadDataError, match="is a folder"):
        load_squad(str(tmp_path))


def test_answer_start_mismatch_reported_and_repaired(tmp_path):
    d = v1_data()
    d["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 38  # nearest "London" is 41
    d["data"][0]["paragraphs"][0]["qas"][1]["answers"][0]["text"] = "1816"     # nowhere in the context
    p = write(tmp_path, d)
    ds, report = load_squad(str(p))
    assert len(ds) == 2 and report.repaired == 0
    assert ds[0]["answers"]["answer_start"][0] == 38  # kept as given without repair
    assert any("'q1': answer 0 'London' answer_start 38" in pr and "occurs at 41" in pr for pr in report.problems)
    assert any("use --repair (eval) / repair=True (Python) to move it" in pr for pr in report.problems)
    assert any("'q2': answer 0 '1816' does not occur" in pr for pr in report.problems)
    ds, report = load_squad(str(p), repair=True)
    assert report.repaired == 1 and ds[0]["answers"]["answer_start"][0] == 41
    assert "1 answer offset repaired" in report.summary()
    assert CTX[41:47] == "London"


@pytest.mark.parametrize("field,value,message", [
    ("question", "   ", "empty question"),
    ("answers", "London", "'answers' is a str"),
    ("is_impossible", True, "is_impossible is true but it has 2 answers"),
])
def test_bad_records(tmp_path, field, value, message):
    d = v1_data()
    d["data"][0]["paragraphs"][0]["qas"][0][field] = value
    with pytest.raises(SquadDataError, match=message):
        load_squad(str(write(tmp_path, d)))


def test_empty_context_and_duplicate_ids(tmp_path):
    d = v1_data()
    d["data"][0]["paragraphs"].append({"context": "", "qas": [{"id": "q9", "question": "x?", "answers": []}]})
    d["data"][0]["paragraphs"][0]["qas"][1]["id"] = "q1"
    with pytest.raises(SquadDataError) as err:
        load_squad(str(write(tmp_path, d)))
    assert "question 1 id 'q1': duplicate id (first seen at article 0 ('Ada'), paragraph 0, question 0" in str(err.value)
    assert "paragraph 1, question 0 id 'q9': empty context" in str(err.value)


def test_hub_id_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SquadDataError, match="hub dataset id .* offline.*local official-format"):
        load_squad("rajpurkar/squad_v2")


@pytest.mark.real_data
def test_every_real_squad_file_loads_and_gold_scores_100(real_data):
    files = sorted(real_data.glob("squad*/*.json"))
    assert len(files) >= 4
    for path in files:
        ds, report = load_squad(str(path))
        assert report.problems == [] and report.n_skipped == 0, path
        gold = gold_answers(ds)
        preds = {q: (g[0] if g else "") for q, g in gold.items()}
        out = squad_evaluate(gold, preds)
        assert out["exact_match"] == 100.0 and out["f1"] == 100.0, path
        if path.name == "dev-part1.json":
            assert report.n_questions == 4961
            assert sum(len(g) > 1 for g in gold.values()) > 4000  # several gold answers per question
        if path.parent.name == "squad_v2.0" and path.name == "dev-subset.json":
            assert (report.n_questions, report.n_impossible) == (4033, 1999)
            assert out["HasAns_total"] == 2034 and out["NoAns_total"] == 1999


def articles_answerable_first(n_first: int = 30, n_other: int = 20, unanswerable_every: int = 4) -> dict:
    """A v2.0 file whose first article holds ``n_first`` answerable questions only; a second article holds
    ``n_other`` questions, every ``unanswerable_every``-th of them unanswerable."""
    def qa(qid, impossible):
        if impossible:
            return {"id": qid, "question": "Where did Ada die?", "answers": [], "is_impossible": True}
        return {"id": qid, "question": "Where was Ada born?", "is_impossible": False,
                "answers": [{"text": "London", "answer_start": 25}]}

    first = [qa(f"a{i}", False) for i in range(n_first)]
    other = [qa(f"b{i}", i % unanswerable_every == 0) for i in range(n_other)]
    return {"version": "v2.0", "data": [{"title": "Ada", "paragraphs": [{"context": CTX, "qas": first}]},
                                        {"title": "Bob", "paragraphs": [{"context": CTX, "qas": other}]}]}


def test_a_train_cap_on_squad_keeps_the_files_share_of_unanswerable_questions_across_articles(tmp_path):
    """The file's first 20 questions (its first article) hold no unanswerable one; a Train cap of 20 draws across
    the articles, stratified by answerable / unanswerable: 20 × 5 / 50 = 2 of them, the same for the same seed,
    and the run's log says how many of the questions, and how many unanswerable ones, it keeps."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks.qa import QATask

    path = str(write(tmp_path, articles_answerable_first()))
    config = TrainConfig(task="squad_v2", train=path, train_cap=20, seed=3)
    ds = QATask("squad_v2").load(config, "train")
    assert len(ds) == 20 and sum(ds["is_impossible"]) == 2
    assert any(i.startswith("a") for i in ds["id"]) and any(i.startswith("b") for i in ds["id"])
    assert list(QATask("squad_v2").load(config, "train")["id"]) == list(ds["id"])   # reproducible
    assert ("info", "20 of 50 questions (2 unanswerable) used: Train cap (a random subset stratified by "
                    "answerable / unanswerable, seed 3)") in ds.notes
    assert QATask("squad_v2").started_info(ds, config) == {"train_unanswerable": 2}


def test_a_squad_v2_run_on_no_unanswerable_question_is_warned_in_its_log(tmp_path):
    """SQuAD v2.0 training data with no unanswerable question never trains the no-answer score: the run's log
    warns, as the τ on dev set page warns for a SQuAD v1.1 checkpoint; a run that has some is not warned."""
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks.qa import QATask

    none = str(write(tmp_path, articles_answerable_first(n_other=0), "none.json"))
    ds = QATask("squad_v2").load(TrainConfig(task="squad_v2", train=none), "train")
    warnings = [m for level, m in ds.notes if level == "warning"]
    assert len(warnings) == 1 and "this run was trained on no unanswerable question" in warnings[0]
    assert "no-answer score was never trained" in warnings[0]
    some = str(write(tmp_path, articles_answerable_first(), "some.json"))
    assert not QATask("squad_v2").load(TrainConfig(task="squad_v2", train=some), "train").notes
