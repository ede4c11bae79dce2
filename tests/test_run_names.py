"""Issue 25, finding 5: a Run name that exists is asked about ("stance exists: use stance-2?"), never
silently replaced; the Runs list shows the user's name; automatic ids and names say the task and data file."""

from explorer.core.runs import store as runs
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.runs import names as run_names
from explorer.ui.runs.runner import make_run_id


def test_automatic_ids_name_the_task_and_the_data_file(tmp_path):
    rid = runs.new_run_id("bundled:minilm", "pair", tmp_path, now=0, data="/data/glue/mrpc_train.tsv")
    assert rid.endswith("-minilm-pair-mrpc_train")
    assert runs.new_run_id("bundled:minilm", "single", now=0, data="nyu-mll/glue::sst2").endswith("-single-glue-sst2")
    assert runs.new_run_id("bundled:minilm", "single", now=0).endswith("-minilm-single")
    assert runs.data_short_name("d/rte.jsonl.gz") == "rte" and runs.data_short_name("") == ""
    assert runs.data_short_name("x/train.jsonl.gz") == "x"   # a generic stem: its folder (tenth trial)
    cfg = TrainConfig(task="pair", train="/d/rte_train.tsv")
    assert make_run_id(cfg, set(), tmp_path).endswith("-pair-rte_train")


def test_a_typed_name_is_kept_with_a_number_when_taken(tmp_path):
    (tmp_path / "stance").mkdir()
    assert runs.free_run_id("stance", tmp_path) == "stance-2"
    assert runs.free_run_id("stance", tmp_path, taken={"stance-2"}) == "stance-3"
    assert make_run_id(TrainConfig(run_id="stance"), set(), tmp_path) == "stance-2"   # not a generated id
    assert not runs.is_generated_run_id("stance-2") and runs.is_generated_run_id("20261130-101500-minilm-qa")


def test_the_runs_list_shows_the_users_name():
    base = {"model": "bundled:minilm", "task": "pair", "batch_size": 32}
    got = run_names.short_names({"stance": dict(base, train="s.tsv"),
                                 "20261130-101500-minilm-pair-mrpc_train": dict(base, train="/d/mrpc_train.tsv"),
                                 "20261130-101600-minilm-pair-rte_train": dict(base, train="/d/rte_train.tsv")})
    assert got == {"stance": "stance", "20261130-101500-minilm-pair-mrpc_train": "mrpc_train",   # what differs
                   "20261130-101600-minilm-pair-rte_train": "rte_train"}


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
