"""A Run name that exists is asked about ("stance exists: use stance-2?"), never silently replaced; the Runs list
shows the user's name; automatic ids and names say the task and the data file (its folder for a generic name)."""

import json

from explorer.core.runs import naming
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.runs import names as run_names
from explorer.ui.runs.runner import make_run_id


def test_automatic_ids_name_the_task_and_the_data_file(tmp_path):
    rid = naming.new_run_id("bundled:minilm", "pair", tmp_path, now=0, data="/data/glue/mrpc_train.tsv")
    assert rid.endswith("-minilm-pair-mrpc_train")
    assert naming.new_run_id("bundled:minilm", "single", now=0, data="nyu-mll/glue::sst2").endswith("-single-glue-sst2")
    assert naming.new_run_id("bundled:minilm", "single", now=0).endswith("-minilm-single")
    assert naming.data_short_name("d/rte.jsonl.gz") == "rte" and naming.data_short_name("") == ""
    assert naming.data_short_name("x/train.jsonl.gz") == "x"   # a generic stem: its folder
    cfg = TrainConfig(task="pair", train="/d/rte_train.tsv")
    assert make_run_id(cfg, set(), tmp_path).endswith("-pair-rte_train")


def test_a_typed_name_is_kept_with_a_number_when_taken(tmp_path):
    (tmp_path / "stance").mkdir()
    assert naming.free_run_id("stance", tmp_path) == "stance-2"
    assert naming.free_run_id("stance", tmp_path, taken={"stance-2"}) == "stance-3"
    assert make_run_id(TrainConfig(run_id="stance"), set(), tmp_path) == "stance-2"   # not a generated id
    assert not naming.is_generated_run_id("stance-2") and naming.is_generated_run_id("20261130-101500-minilm-qa")


def test_the_runs_list_shows_the_users_name():
    base = {"model": "bundled:minilm", "task": "pair", "batch_size": 32}
    got = run_names.short_names({"stance": dict(base, train="s.tsv"),
                                 "20261130-101500-minilm-pair-mrpc_train": dict(base, train="/d/mrpc_train.tsv"),
                                 "20261130-101600-minilm-pair-rte_train": dict(base, train="/d/rte_train.tsv")})
    assert got == {"stance": "stance", "20261130-101500-minilm-pair-mrpc_train": "minilm · pair · mrpc_train",
                   "20261130-101600-minilm-pair-rte_train": "minilm · pair · rte_train"}


def test_the_launcher_asks_before_using_another_name(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel

    out = tmp_path / "runs"
    (out / "stance").mkdir(parents=True)
    w = LauncherPanel(out)
    qtbot.addWidget(w)
    asked, launched = [], []
    w.launch_requested.connect(lambda cfgs, _s: launched.extend(cfgs))
    w.editors["run_id"].set("stance")
    w.ask_yes_no = lambda title, text: asked.append(text) or False
    assert w.launch() is False and launched == []
    assert asked == ["A run named stance exists: use stance-2?"] and "type another Run name" in w.problem.text()
    w.ask_yes_no = lambda title, text: True
    assert w.launch() is True
    assert [c.run_id for c in launched] == ["stance-2"] and w.editors["run_id"].get() == "stance-2"
    w.editors["run_id"].set("fresh")
    w.ask_yes_no = lambda title, text: asked.append(text) or True
    assert w.launch() is True and launched[-1].run_id == "fresh" and len(asked) == 1   # a free name: no question


def test_automatic_run_names_say_the_data_folder_when_the_file_name_is_generic(tmp_path):
    """The SST-2 run and the stance run, both on files called train.*, are told apart by their data folders, not
    both "single · train" with only their start times to tell them apart."""
    from explorer.core.runs import naming as runs
    from explorer.ui.runs.names import short_names

    sst2, stance = "/data/glue_sst2/train.tsv", "/data/stance_semeval2016/train.txt"
    assert runs.data_short_name(sst2) == "glue_sst2" and runs.data_short_name(stance) == "stance_semeval2016"
    assert runs.data_short_name("/data/squad_v1.1/train-subset.json") == "squad_v1.1"      # every word generic
    assert runs.data_short_name("/data/glue/mrpc_train.tsv") == "mrpc_train"                # the stem says it
    assert runs.new_run_id("bundled:minilm", "single", now=0, data=stance).endswith("-minilm-single-stance_semeval2016")
    base = {"model": "bundled:minilm", "batch_size": 16}
    got = short_names({"20261202-032900-minilm-single-glue_sst2": dict(base, task="single", train=sst2),
                       "20261202-033700-minilm-single-stance_semeval2016": dict(base, task="single", train=stance),
                       "20261202-031800-minilm-ner-conll2003": dict(base, task="ner", train="/data/conll2003/train.txt")})
    assert sorted(got.values()) == ["minilm · ner · conll2003", "minilm · single · glue_sst2",
                                    "minilm · single · stance_semeval2016"]


def test_a_run_keeps_the_name_it_was_shown_by_in_the_next_session(qtbot, tmp_path):
    """Session 1 lists a SQuAD run beside a BERT-base run: it is named by its model too ("minilm · squad_v1").
    Session 2 lists it with other MiniLM runs only: the names computed now would drop the model, but the run keeps
    the name it had; a new run whose name is taken gets its id after it; the user's own name still wins."""
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.settings import AppSettings, ShownRunNames

    def run(rid, model, task):
        folder = tmp_path / rid
        folder.mkdir(exist_ok=True)
        return RunState(run_id=rid, path=folder, config={"model": model, "task": task, "train": "/d/train-v1.1.json"})

    squad = "20261130-101500-minilm-squad_v1"
    settings = AppSettings(tmp_path / "settings.ini")
    first = RunsModel()
    first.shown_names = ShownRunNames(settings)
    for s in (run(squad, "bundled:minilm", "squad_v1"), run("20261130-101600-bert-squad_v1", "bert-base", "squad_v1")):
        first.upsert(s)
    shown = first.names[squad]
    assert shown.startswith("minilm")

    second = RunsModel()
    second.shown_names = ShownRunNames(AppSettings(tmp_path / "settings.ini"))   # the next session
    for s in (run(squad, "bundled:minilm", "squad_v1"), run("20261201-090000-minilm-squad_v2", "bundled:minilm",
                                                            "squad_v2")):
        second.upsert(s)
    assert second.names[squad] == shown
    assert run_names.short_names({squad: {"model": "bundled:minilm", "task": "squad_v1"},
                                  "x": {"model": "bundled:minilm", "task": "squad_v2"}})[squad] != shown   # it would move
    assert run_names.keep_shown_names({"a": "squad_v1", "b": "squad_v1"}, {"a": "squad_v1"}) == {
        "a": "squad_v1", "b": "squad_v1 · b"}
    assert run_names.keep_shown_names({"a": "mine"}, {"a": "old"}, {"a": "mine"}) == {"a": "mine"}


def test_a_temporary_folder_never_names_the_run():
    """A file in a folder tempfile.mkdtemp made is named by its stem, not "tmpab12cd lr5e-5"; a real folder still is."""
    from explorer.core.runs import naming

    assert naming.data_short_name("/tmp/tmpab12cd_x/train.csv") == "train"
    assert naming.data_short_name("/tmp/tmp7k2m9q1z/data.tsv") == "data"
    assert naming.data_short_name("/tmp/tmp7k2m9q1z/tweets/train.csv") == "tweets"
    assert naming.data_short_name("/home/me/tmpfiles_for_stance/train.csv") == "tmpfiles_for_stance"


def test_a_folder_read_at_start_names_its_runs_once_with_the_same_names(tmp_path, monkeypatch):
    """Reading a runs folder adds every run inside names_deferred: the short names are computed once at the end
    (each run added recomputed and repainted every row: 1,000 runs took minutes to list) and equal those of the
    runs added one by one."""
    from explorer.ui.runs import dock
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState

    states = [RunState(run_id=f"r{i}", path=tmp_path / f"r{i}", config={"model": "bundled:minilm", "task": task,
                                                                      "learning_rate": lr})
              for i, (task, lr) in enumerate([("single", 2e-5), ("single", 1e-4), ("pair", 2e-5)])]
    one_by_one = RunsModel()
    for s in states:
        one_by_one.upsert(s)
    calls = []
    real = dock.short_names
    monkeypatch.setattr(dock, "short_names", lambda *a, **k: calls.append(1) or real(*a, **k))
    batch = RunsModel()
    with batch.names_deferred():
        for s in states:
            batch.upsert(s)
        assert calls == [] and batch.names == {}
    assert len(calls) == 1 and batch.names == one_by_one.names and len(batch.names) == 3


def test_a_run_on_the_tasks_default_learning_rate_is_named_by_that_rate():
    """A run launched with the Learning rate left empty (None in its config: the task's default) is named and
    described by the rate it trains with, never "lrNone"; a run on the default beside one on the same rate set
    by hand differs only by what else differs."""
    from explorer.core.specs.tasks import get_task_facts
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState

    default = get_task_facts("single").default_learning_rate
    base = {"model": "bundled:minilm", "task": "single", "train": "/d/sst2_train.tsv", "batch_size": 32}
    got = run_names.short_names({"20261130-101500-minilm-single-sst2_train": dict(base, learning_rate=None),
                                 "20261130-101600-minilm-single-sst2_train": dict(base, learning_rate=1e-4)})
    assert "None" not in " ".join(got.values())
    assert got["20261130-101500-minilm-single-sst2_train"] == f"minilm · single · sst2_train · lr{default:g}"
    assert got["20261130-101600-minilm-single-sst2_train"] == "minilm · single · sst2_train · lr0.0001"
    same = run_names.short_names({"20261130-101500-minilm-single-sst2_train": dict(base, learning_rate=None, seed=1),
                                  "20261130-101600-minilm-single-sst2_train": dict(base, learning_rate=default,
                                                                                   seed=2)})
    assert sorted(same.values()) == ["minilm · single · sst2_train · seed1", "minilm · single · sst2_train · seed2"]
    assert run_names.effective_setting(dict(base, max_seq_length=None), "max_seq_length") == \
        get_task_facts("single").default_max_seq_length
    assert run_names.effective_setting({"task": "no-such-task", "learning_rate": None}, "learning_rate") == ""
    model = RunsModel()
    state = RunState(run_id="r1", config=dict(base, learning_rate=None))
    assert "None" not in model.cells._run_tooltip(state) and f"lr {default}" in model.cells._run_tooltip(state)


def test_every_listed_name_is_unique_a_remote_run_named_by_its_host_then_a_number():
    """Two SST-2 runs, one here and one on gpubox, named alike by their settings: the remote one gets "@ gpubox"
    (no start time needed); two local ones started in the same minute a number after their time; a user's own name
    stays as it is and the others are told apart from it."""
    base = {"model": "bundled:minilm", "task": "single", "train": "/d/glue_sst2/train.tsv"}
    here, there = "20261206-074210-minilm-single-glue_sst2", "20261206-074250-minilm-single-glue_sst2"
    other = {"model": "bundled:minilm", "task": "single", "train": "/d/stance/train.tsv"}
    got = run_names.short_names({here: base, there: base, "20261206-080000-minilm-single-stance": other},
                                hosts={there: "gpubox"})
    assert got[here] == "minilm · single · glue_sst2" and got[there] == "minilm · single · glue_sst2 @ gpubox"
    third = "20261206-074255-minilm-single-glue_sst2"
    got = run_names.short_names({here: base, third: base, there: base}, hosts={there: "gpubox"})
    assert len(set(got.values())) == 3 and got[there].endswith("@ gpubox")
    assert {got[here], got[third]} == {"minilm · single · glue_sst2 · 07:42", "minilm · single · glue_sst2 · 07:42 (2)"}
    assert run_names.unique_names({"a": "mine", "b": "mine", "c": "mine"}, keep={"a"}) == {
        "a": "mine", "b": "mine (2)", "c": "mine (3)"}


def test_two_runs_shown_alike_in_an_earlier_session_are_told_apart_in_the_runs_list(qtbot, tmp_path):
    """The names shown in an earlier session are kept, but two runs it showed by the same name (a local run and its
    remote twin) are listed apart now: the remote one by its host."""
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.settings import AppSettings, ShownRunNames

    config = {"model": "bundled:minilm", "task": "single", "train": "/d/glue_sst2/train.tsv"}
    rows = []
    for rid, host in (("20261206-074210-minilm-single-glue_sst2", ""), ("20261206-074250-minilm-single-glue_sst2",
                                                                       "gpubox")):
        (tmp_path / rid).mkdir()
        rows.append(RunState(run_id=rid, path=tmp_path / rid, config=config, host=host))
    shown = ShownRunNames(AppSettings(tmp_path / "settings.ini"))
    shown.remember({str((tmp_path / s.run_id).resolve()): "minilm · single · glue_sst2 · 12-06 07:42" for s in rows})
    model = RunsModel()
    model.shown_names = ShownRunNames(AppSettings(tmp_path / "settings.ini"))   # the next session
    for s in rows:
        model.upsert(s)
    assert model.names[rows[0].run_id] == "minilm · single · glue_sst2 · 12-06 07:42"
    assert model.names[rows[1].run_id] == "minilm · single · glue_sst2 · 12-06 07:42 @ gpubox"


def test_runs_on_two_data_sets_are_named_by_their_data_before_the_settings_they_differ_in():
    """Runs on table A and on table B with the same settings, a run on A with another learning rate and a remote
    copy of the first run on A: the learning rate alone would name three of them "lr2e-05", told apart only by a
    start time the narrow list cuts; each name says its data set first, and no two names are alike."""
    base = {"model": "bundled:minilm", "task": "single", "batch_size": 32, "learning_rate": None}
    a, b = "/data/stance_semeval2016/train.txt", "/tmp/own/tweets_product.csv"
    a_default, b_default = "20261206-102630-minilm-single-stance_semeval2016", "20261206-102837-minilm-single-tweets"
    a_remote, a_fast = "20261206-102630-minilm-single-stance_semeval2016-2", "20261206-110500-minilm-single-stance"
    runs = {a_default: dict(base, train=a), b_default: dict(base, train=b), a_remote: dict(base, train=a),
            a_fast: dict(base, train=a, learning_rate=5e-5)}
    got = run_names.short_names(runs, hosts={a_remote: "gpubox"})
    assert len(set(got.values())) == 4
    for run_id, data in ((a_default, "stance_semeval2016"), (a_remote, "stance_semeval2016"), (a_fast,
                                                                                            "stance_semeval2016"),
                         (b_default, "tweets_product")):
        assert got[run_id].startswith(f"minilm · single · {data}"), got
    assert got[a_fast] == "minilm · single · stance_semeval2016 · lr5e-05"
    assert got[a_default] == "minilm · single · stance_semeval2016 · lr2e-05"
    assert got[a_remote] == "minilm · single · stance_semeval2016 · lr2e-05 @ gpubox"   # its host, not a time
    assert got[b_default] == "minilm · single · tweets_product"
    # two groups on one data file told apart by their task next; the runs all on one file: no data in the names
    pair = run_names.short_names({"20261206-101000-minilm-a": dict(base, train=a), "20261206-102000-minilm-a": dict(base, train=a,
                                                                                          learning_rate=5e-5),
                                  "20261206-103000-minilm-b": dict(base, train=a, task="pair"),
                                  "20261206-104000-minilm-b": dict(base, train=a, task="pair", learning_rate=5e-5)})
    assert pair == {"20261206-101000-minilm-a": "minilm · single · stance_semeval2016 · lr2e-05",
                    "20261206-102000-minilm-a": "minilm · single · stance_semeval2016 · lr5e-05",
                    "20261206-103000-minilm-b": "minilm · pair · stance_semeval2016 · lr2e-05",
                    "20261206-104000-minilm-b": "minilm · pair · stance_semeval2016 · lr5e-05"}


def test_the_start_time_is_a_last_resort_and_short():
    """Twins that neither settings, data nor host tell apart get their start time, the hour and minute alone when
    they started on one day, with the date when they did not."""
    cfg = {"model": "bundled:minilm", "task": "single", "train": "/d/glue_sst2/train.tsv"}
    same_day = run_names.short_names({"20261206-074210-x": cfg, "20261206-091500-x": cfg})
    assert same_day == {"20261206-074210-x": "minilm · single · glue_sst2 · 07:42",
                        "20261206-091500-x": "minilm · single · glue_sst2 · 09:15"}
    days = run_names.short_names({"20261205-074210-x": cfg, "20261206-091500-x": cfg})
    assert days["20261205-074210-x"].endswith("· 12-05 07:42") and days["20261206-091500-x"].endswith("· 12-06 09:15")


def test_the_runs_list_keeps_earlier_names_and_names_new_runs_by_their_data(qtbot, tmp_path):
    """Session 1 lists a stance run and a tweets run (each named by its data set). Session 2 adds a stance run with
    another learning rate and a remote copy of the first: the first two keep their names, the new ones say their
    data set and what differs, and no two names are alike."""
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.settings import AppSettings, ShownRunNames

    base = {"model": "bundled:minilm", "task": "single", "learning_rate": None}
    stance, tweets = dict(base, train="/data/stance_semeval2016/train.txt"), dict(base, train="/own/tweets.csv")

    def run(rid, config, host=""):
        (tmp_path / rid).mkdir(exist_ok=True)
        return RunState(run_id=rid, path=tmp_path / rid, config=config, host=host)

    first_two = [run("20261206-102630-minilm-single-stance", stance), run("20261206-102837-minilm-single-tweets",
                                                                           tweets)]
    first = RunsModel()
    first.shown_names = ShownRunNames(AppSettings(tmp_path / "settings.ini"))
    with first.names_deferred():
        for s in first_two:
            first.upsert(s)
    assert first.names == {"20261206-102630-minilm-single-stance": "minilm · single · stance_semeval2016",
                           "20261206-102837-minilm-single-tweets": "minilm · single · tweets"}
    second = RunsModel()
    second.shown_names = ShownRunNames(AppSettings(tmp_path / "settings.ini"))   # the next session
    with second.names_deferred():   # its runs folder read at its start: named together
        for s in first_two + [run("20261206-102630-minilm-single-stance-2", stance, "gpubox"),
                              run("20261206-110500-minilm-single-stance", dict(stance, learning_rate=5e-5))]:
            second.upsert(s)
    assert second.names == {"20261206-102630-minilm-single-stance": "minilm · single · stance_semeval2016",
                            "20261206-102837-minilm-single-tweets": "minilm · single · tweets",
                            "20261206-102630-minilm-single-stance-2":
                                "minilm · single · stance_semeval2016 · lr2e-05 @ gpubox",
                            "20261206-110500-minilm-single-stance": "minilm · single · stance_semeval2016 · lr5e-05"}


def test_a_run_that_appears_never_renames_the_runs_already_listed(qtbot, tmp_path):
    """Two stance runs are listed by their model, task and data and the learning rate they differ in; an HF Trainer
    output folder opened beside them renames neither (a name never depends on the other runs listed), the Trainer
    run gets a name of its own, and a run leaving the list renames none either."""
    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.runs.store import load_summary
    from explorer.ui.shell.settings import AppSettings, ShownRunNames

    stance = {"model": "bundled:minilm", "task": "single", "train": "/data/stance_semeval2016/train.txt"}
    ours = []
    for rid, lr in (("20261206-102630-minilm-single-stance", 2e-5), ("20261206-110500-minilm-single-stance", 5e-5)):
        (tmp_path / rid).mkdir()
        ours.append(RunState(run_id=rid, path=tmp_path / rid, config=dict(stance, learning_rate=lr)))
    model = RunsModel()
    model.shown_names = ShownRunNames(AppSettings(tmp_path / "settings.ini"))
    with model.names_deferred():   # the runs folder read at start
        for s in ours:
            model.upsert(s)
    seen = dict(model.names)
    assert sorted(seen.values()) == ["minilm · single · stance_semeval2016 · lr2e-05",
                                     "minilm · single · stance_semeval2016 · lr5e-05"]
    trainer = tmp_path / "hf-output"
    trainer.mkdir()
    (trainer / "trainer_state.json").write_text(json.dumps({"global_step": 40, "max_steps": 40, "log_history": [
        {"step": 10, "loss": 0.7}, {"step": 40, "train_runtime": 12.0, "train_loss": 0.5}]}))
    hf = load_summary(trainer)
    alone = run_names.short_names({**{s.run_id: s.config for s in ours}, hf.run_id: hf.config})
    assert {r: alone[r] for r in seen} == seen   # the rule alone keeps the names of the runs listed
    model.upsert(hf)
    assert {r: model.names[r] for r in seen} == seen
    assert model.names[hf.run_id] not in seen.values() and len(set(model.names.values())) == 3
    model.remove(ours[0].run_id)
    assert model.names[ours[1].run_id] == seen[ours[1].run_id]


def test_every_automatic_run_name_says_model_task_and_data_whatever_runs_are_listed_beside_it():
    """One rule names a run: the model's short name, the task and the data file's stem, its folder where the stem is
    generic (train.txt), whether it is listed alone, with runs of the same model or with runs of another model: an
    own table never reads as its folder, and no run drops its model because the list holds one model only."""
    own = ("20261207-001000-minilm-single-liar", {"model": "bundled:minilm", "task": "single",
                                                  "train": "/tmp/x/own/liar.tsv"})
    stance = ("20261207-001100-minilm-single-stance_semeval2016",
              {"model": "bundled:minilm", "task": "single", "train": "/data/stance_semeval2016/train.txt"})
    ner = ("20261207-001200-minilm-ner-conll2003", {"model": "bundled:minilm", "task": "ner",
                                                    "train": "/data/conll2003/train.txt"})
    other_model = ("20261207-001300-bert-tiny-single-liar", {"model": "prajjwal1/bert-tiny", "task": "single",
                                                             "train": "/tmp/x/own/liar.tsv"})
    want = {own[0]: "minilm · single · liar", stance[0]: "minilm · single · stance_semeval2016",
            ner[0]: "minilm · ner · conll2003", other_model[0]: "bert-tiny · single · liar"}
    for listed in ([own], [stance], [ner], [own, stance, ner], [own, stance, ner, other_model], [stance, ner]):
        got = run_names.short_names(dict(listed))
        assert got == {rid: want[rid] for rid, _ in listed}, got


def test_names_kept_from_the_rule_that_dropped_the_model_give_way_to_the_one_rule(qtbot, tmp_path):
    """A name kept under the settings key of names that may leave out the model ("single · stance_semeval2016")
    is not read: the run reads "minilm · single · stance_semeval2016"; a name kept under the one rule's key stays."""
    from PySide6.QtCore import QSettings

    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.settings import AppSettings, ShownRunNames

    rid = "20261206-102630-minilm-single-stance_semeval2016"
    (tmp_path / rid).mkdir()
    state = RunState(run_id=rid, path=tmp_path / rid, config={"model": "bundled:minilm", "task": "single",
                                                             "train": "/data/stance_semeval2016/train.txt"})
    ini = tmp_path / "settings.ini"
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    old.setValue("runs/names", json.dumps({str((tmp_path / rid).resolve()): "single · stance_semeval2016"}))
    old.sync()
    model = RunsModel()
    model.shown_names = ShownRunNames(AppSettings(ini))
    model.upsert(state)
    assert model.names[rid] == "minilm · single · stance_semeval2016"
    kept = ShownRunNames(AppSettings(ini))
    kept.remember({str((tmp_path / rid).resolve()): "minilm · single · stance_semeval2016 · 10:26"})
    again = RunsModel()
    again.shown_names = ShownRunNames(AppSettings(ini))
    again.upsert(state)
    assert again.names[rid] == "minilm · single · stance_semeval2016 · 10:26"
    assert QSettings(str(ini), QSettings.Format.IniFormat).value("runs/names") is None   # the old key is gone
