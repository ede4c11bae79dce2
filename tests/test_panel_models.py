"""What the Curves page, the Runs list and the main window's status bar decide, without Qt: CurvesModel (which
plots, the x range, which plots a refresh redraws, notes, legend, progress), RunSelection and RunCells (buttons,
menu entries, tooltips, cell texts) and status_texts. No qtbot: these are plain Python."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO_ROOT, worker_env

from explorer.core.runs import status as run_status
from explorer.ui.curves.curves_model import NO_RUN_LEGEND, PALETTE, CurvesModel, series_sort_key
from explorer.ui.runs.run_cells import COLUMNS, RunCells, status_text
from explorer.ui.runs.selection import INSPECT_TIP, RunSelection, list_note
from explorer.ui.runs.state import RunState, Series
from explorer.ui.shell import status_texts


def _run(run_id: str, steps: int = 100, *, status=run_status.RUNNING, total: int = 0, task: str = "squad_v2",
         dev: dict | None = None, **fields) -> RunState:
    """A run with a loss at every step (1..steps) and dev metrics {name: values at steps 10, 20, ...}."""
    s = RunState(run_id=run_id, status=status, steps_total=total, step=steps, config={"task": task}, **fields)
    if steps:
        s.series["loss"] = Series()
        s.series["loss"].extend(np.arange(1, steps + 1, dtype=float), np.linspace(3, 1, steps))
    for name, values in (dev or {}).items():
        s.series["dev/" + name] = Series()
        s.series["dev/" + name].extend(10.0 * np.arange(1, len(values) + 1), np.asarray(values, dtype=float))
    return s


def test_the_models_import_no_qt():
    code = ("import sys; import explorer.ui.curves.curves_model, explorer.ui.runs.selection, "
            "explorer.ui.runs.run_cells, explorer.ui.shell.status_texts; "
            "qt = [m for m in ('PySide6', 'pyqtgraph') if m in sys.modules]; print(qt); sys.exit(1 if qt else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
                          env=worker_env(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---- Curves ---------------------------------------------------------------------------------------------------
def test_each_run_keeps_its_colour_in_the_order_runs_are_first_shown():
    m = CurvesModel()
    m.set_runs([_run("a"), _run("b")])
    assert [c for _, c in m.pairs()] == PALETTE[:2]
    assert not m.set_runs([_run("a"), _run("b")]) and m.set_runs([_run("b"), _run("c")])
    assert m.color("b") == PALETTE[1] and m.color("c") == PALETTE[2]


def test_the_main_dev_metric_comes_right_after_the_loss():
    m = CurvesModel()
    m.set_runs([_run("a", dev={"f1": [10, 20], "exact_match": [5, 10], "best_f1": [11, 21]})])
    keys = m.visible_keys()
    assert keys[0] == "loss" and keys[1] == "dev/best_f1"          # squad_v2's best-by metric
    assert keys.index("lr") > keys.index("dev/f1")
    assert series_sort_key("loss") < series_sort_key("dev/f1") < series_sort_key("lr") < series_sort_key("x")


def test_a_series_the_user_hides_stays_hidden_and_the_menu_lists_what_runs_report():
    m = CurvesModel()
    assert "dev/f1" in m.menu_keys()                                 # no run: the table's defaults
    m.set_runs([_run("a", dev={"f1": [10, 20]})])
    m.show("dev/f1", False)
    assert "dev/f1" not in m.visible_keys() and m.menu_keys() == ["dev/f1"]
    m.show("dev/f1")
    assert "dev/f1" in m.visible_keys()


def test_the_x_range_spans_the_live_runs_planned_steps_and_the_last_n_window():
    m = CurvesModel()
    assert m.target_x(0) is None
    m.set_runs([_run("a", 100, total=1_000)])
    assert m.target_x(0) == (0.0, 1_000.0)
    assert m.target_x(20) == (80.0, 100.0)
    m.x_follow = False                                               # the user panned
    assert m.target_x(0) is None and m.target_x(20) == (80.0, 100.0)
    m.set_runs([_run("b", 50, status=run_status.FINISHED)])
    m.x_follow = True
    assert m.target_x(0) == (1.0, 50.0)


def test_a_re_estimated_step_total_moves_the_axis_end_only_past_it_or_well_below():
    m = CurvesModel()
    assert m.axis_end(5_000) == 5_000
    assert m.axis_end(4_900) == 5_000 and m.axis_end(5_000) == 5_000     # within 95-100%: stays
    assert m.axis_end(5_100) == pytest.approx(5_202)                       # past it: 2% to spare
    assert m.axis_end(3_000) == 3_000                                      # far below: follows


def test_a_refresh_redraws_the_plots_with_new_points_and_all_when_the_x_range_moved():
    m = CurvesModel()
    m.set_runs([_run("a", 100, status=run_status.FINISHED)])
    keys = ["loss", "lr", "dev/f1"]
    m.collect(keys, set(keys), 0)
    assert m.pending == {"loss": {"a"}, "lr": {"a"}, "dev/f1": {"a"}}
    m.pending.clear()
    m.collect(keys, set(), 0)
    assert m.pending == {}                                            # nothing new, the same range
    m.mark("a", {"loss"})
    m.collect(keys, set(), 0)
    assert m.pending == {"loss": {"a"}}
    assert m.next_refresh() == ("loss", {"a"}) and m.pending == {}
    m.mark("a", {"lr"})
    m.collect(keys, set(), 50)                                        # another range: every plot
    assert m.pending == {"loss": set(), "lr": {"a"}, "dev/f1": set()}
    m.mark("a")
    m.mark("a", {"loss"})
    assert m.dirty == {"a": None}                                     # all stays all
    m.mark_smoothing()
    assert m.dirty == {"a": None}


def test_a_training_plot_says_when_no_shown_run_logs_it():
    m = CurvesModel()
    assert m.absent_note("samples_per_second") == ""
    m.set_runs([_run("a")])
    assert m.absent_note("samples_per_second") == "not logged by this run" and m.absent_note("loss") == ""
    m.set_runs([_run("a"), _run("b")])
    assert m.absent_note("grad_norm") == "not logged by these runs"
    m.set_runs([_run("c", 0)])                                        # no step logged yet: nothing is missing
    assert m.absent_note("grad_norm") == ""
    assert m.absent_note("dev/f1") == ""


def test_the_legend_and_the_progress_line():
    m = CurvesModel()
    assert m.progress(0.0) == ((0, 1, 0, "no run"), None) and m.legend_entries() == []
    assert "No run selected" in NO_RUN_LEGEND
    done, live = _run("done", 40, status=run_status.FINISHED, total=40), _run("live", 30, total=120)
    m.name_of = lambda run_id: run_id.upper()
    m.set_runs([done, live])
    assert m.focus_run() is live
    bar, (name, _parts, tip) = m.progress(1e9)
    assert bar == (0, 120, 30, "running · %p%") and name == "LIVE" and tip.startswith("live: ")
    (plain, rich), _ = m.legend_entries()
    assert plain == "■ DONE (finished)" and PALETTE[0] in rich and "DONE" in rich
    assert m.legend_key()[0] == rich


def test_the_legend_follows_the_best_checkpoint_saved_after_its_evaluation():
    """The loop logs an evaluation, then the "best" checkpoint it saved from it: the legend entry (and what decides
    whether the legend is written again) moves to the new best when the checkpoint event comes, as the Runs list's
    Best dev does."""
    m = CurvesModel()
    state = RunState("r")
    for ev in ({"event": "started", "step": 0, "config": {"task": "squad_v1"}},
               {"event": "eval", "step": 23, "metrics": {"f1": 13.37, "exact_match": 10.0}},
               {"event": "checkpoint", "kind": "best", "step": 23, "metric": "f1", "path": "b"},
               {"event": "eval", "step": 46, "metrics": {"f1": 26.88, "exact_match": 20.0}}):
        state.apply(ev)
    m.set_runs([state])
    before = m.legend_key()
    assert "13.37 @23" in m.legend_entries()[0][0]
    state.apply({"event": "checkpoint", "kind": "best", "step": 46, "metric": "f1", "path": "b"})
    assert "26.88 @46" in m.legend_entries()[0][0] and m.legend_key() != before


# ---- the Runs list --------------------------------------------------------------------------------------------
def test_what_the_buttons_allow_for_the_selection(tmp_path):
    live, failed = _run("live", status=run_status.RUNNING), _run("bad", status=run_status.FAILED, error="boom <x>")
    sel = RunSelection([live, failed])
    assert sel.can_stop() and sel.can_cancel() and not sel.can_open_folder() and not sel.can_inspect()
    assert sel.failed() == [failed] and sel.failed_line().startswith("<b>bad failed:</b> boom &lt;x&gt; ")
    assert sel.inspect_tip(str) == INSPECT_TIP + " (2 runs are selected: select one.)"
    queued = RunSelection([_run("q", 0, status=run_status.QUEUED)])
    assert not queued.can_stop() and queued.can_cancel()
    assert queued.inspect_tip(lambda rid: "my q") == "my q is queued: it saves its first checkpoint once it trains."
    assert RunSelection([]).inspect_tip(str) == INSPECT_TIP and RunSelection([]).failed_line() == ""
    assert list_note(True, False) == "Loading runs…" and list_note(False, True) == "" and list_note(False, False)


def test_a_live_runs_inspect_tip_says_when_its_first_checkpoint_comes():
    s = RunState(run_id="r", status=run_status.RUNNING, config={"task": "single", "eval_every": 50})
    assert RunSelection([s]).inspect_tip(str) == ("No checkpoint yet: r saves checkpoints/best at its first "
                                                  "evaluation after training starts (every 50 steps, Evaluate every).")
    s.config["eval_every"] = 0
    assert "at the end of training" in RunSelection([s]).inspect_tip(str)
    s.status = run_status.CRASHED
    assert RunSelection([s]).inspect_tip(str).startswith("r left no checkpoint")


def test_only_ended_runs_of_ours_may_be_deleted_or_cleaned_up(tmp_path):
    folder = tmp_path / "run"
    (folder / "checkpoints" / "best").mkdir(parents=True)
    ended = RunState(run_id="r", path=folder, status=run_status.FINISHED)
    sel = RunSelection([ended])
    assert sel.ended_ours() and sel.can_rename() and sel.can_keep_only_best() and sel.can_export()
    assert not sel.can_delete_optimizer_state()                     # no optimizer state in its checkpoints
    assert not RunSelection([ended, _run("live")]).ended_ours()
    assert not RunSelection([RunState(run_id="x", status=run_status.FINISHED)]).can_rename()   # no folder
    question = RunSelection([ended]).delete_question({"r": 3_000_000})
    assert question.startswith("Delete 1 run(s) (") and "\n  r\n" in question and ".trash" in question


def test_the_cells_of_a_run_and_the_status_as_listed():
    cells = RunCells(type("Source", (), {"names": {"a": "short a"}, "sizes": {"a": 2048}})())
    s = _run("a", 30, total=120, task="single")
    col = COLUMNS.index
    assert cells.text(s, col("Run")) == "short a" and cells.text(s, col("Step")) == "30/120"
    assert cells.text(s, col("Status")) == "running" and cells.text(s, col("Task")) == "single"
    assert cells.sort_key(s, col("Size")) == 2048 and cells.sort_key(s, col("Best dev")) == -1.0
    assert "no saved evaluation yet" in cells.tooltip(s, col("Best dev"))
    queued = RunState(run_id="q", status=run_status.QUEUED)
    assert cells.text(queued, col("Duration")) == "" and cells.text(queued, col("Run")) == "q"
    never = RunState(run_id="c", status=run_status.CANCELLED)
    assert status_text(never) == "cancelled (queued)"
    assert status_text(RunState(run_id="j", status=run_status.QUEUED, queue_note="SLURM job 7: Priority")) == \
        "queued (SLURM job 7: Priority)"


# ---- the main window's status bar -----------------------------------------------------------------------------
def test_the_activity_and_device_lines():
    assert status_texts.activity_line([], str) == ("", "")
    runs = [_run("q", 0, status=run_status.QUEUED), _run("r", 12, total=40)]
    # "1 running" beside the one run named as running is left out (a crowded status bar at 1280x800)
    assert status_texts.activity_line(runs, str.upper) == ("running: R step 12/40 · 1 queued", "r")
    assert status_texts.activity_line(runs + [_run("s", 3, total=40)], str.upper)[0] == (
        "running: R step 12/40 · 2 running · 1 queued")
    describe = lambda device, mp: f"{device}/{mp}"   # noqa: E731
    assert status_texts.device_line([], "cpu", str, describe) == "device: cpu (idle)"
    assert status_texts.device_line(runs, "cpu", str, describe) == "device: cpu (starting)"
    runs[1].device, runs[1].mixed_precision = "cuda:0", "bf16"
    assert status_texts.device_line(runs, "cpu", lambda rid: "gpubox", describe) == "device: cuda:0/bf16 on gpubox"


def test_the_activity_and_device_short_forms_are_counts_and_the_host():
    """Where the status bar has no room for the lines (1280 px): the runs counted ("2 running · 1 queued", "1
    running" too) and the host alias of a run training elsewhere, else the device's first word."""
    assert status_texts.activity_short([]) == ""
    runs = [_run("q", 0, status=run_status.QUEUED), _run("r", 12, total=40)]
    assert status_texts.activity_short(runs) == "1 running · 1 queued"
    assert status_texts.activity_short(runs + [_run("s", 3, total=40)]) == "2 running · 1 queued"
    assert status_texts.device_short([], "CPU (1 of 2 threads: the machine is busy, load 1.6)", str) == "CPU"
    runs[1].device = "cuda:0"
    assert status_texts.device_short(runs, "cpu", lambda rid: "gpubox3") == "gpubox3"
    assert status_texts.device_short(runs, "cpu", lambda rid: "") == "cuda:0"


def test_the_messages_after_a_read_and_an_end():
    noted = _run("n", read_notes=["events.jsonl line 4 skipped"])
    text = status_texts.scan_message(Path("runs"), [_run("a"), noted], ["x: not a run"], 5, "settings reset")
    assert text == ("2 runs in runs (5 listed with those opened from elsewhere or queued); 1 unreadable: x: not a run; "
                    "1 read with parts skipped (see the Status tooltip): events.jsonl line 4 skipped. "
                    "Note: settings reset")
    assert status_texts.scan_message(Path("runs"), [_run("a")], [], 1, "") == "1 run in runs"
    assert status_texts.ended_message("r", run_status.FAILED, _run("r", error="oom")) == "r: failed — oom"
    assert status_texts.ended_message("r", run_status.FINISHED, None) == "r: finished"
    assert status_texts.gone_note([], "run folder", "opened") == ""
    assert status_texts.gone_note(["A", "B"], "run folder", "opened") == \
        "2 run folders opened before no longer exist and were skipped: A, B"
    assert status_texts.gone_note(["A"], "predictions file", "shown") == \
        "1 predictions file shown before no longer exists and was skipped: A"


def test_the_read_line_counts_the_opened_folders_the_list_shows_beside_the_runs_folder(tmp_path):
    from explorer.ui.shell.run_reading import outside_count

    runs = tmp_path / "runs"
    (runs / "a").mkdir(parents=True)
    (tmp_path / "hf_out").mkdir()
    assert outside_count([str(tmp_path / "hf_out"), str(runs / "a")], runs) == 1
    text = status_texts.scan_message(Path("runs"), [_run("a"), _run("b"), _run("c")], [], 3, "", opened=1)
    assert text == "3 runs in runs, 1 opened folder"
    text = status_texts.scan_message(Path("runs"), [_run("a")], [], 4, "", opened=2)
    assert text == "1 run in runs, 2 opened folders (4 listed with those opened from elsewhere or queued)"
