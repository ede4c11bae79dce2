"""The launcher says before launch how the run will evaluate and why: the cadence, the dev rows (a stratified sample
of a large dev set, all rows at the end), the share of the wall time, what the run decides once it has timed itself,
and with rates past runs of the model measured, the plan and the whole run's time."""

from __future__ import annotations

import dataclasses

from explorer.core.runs import status as run_status
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.eval_plan_preview import (EvalPreviewInput, eval_plan_preview, measured_eval_rate,
                                                  samples_dev_rows)
from explorer.ui.launch.run_plan import RunPlan
from explorer.ui.runs.state import RunState


def test_a_large_dev_set_of_a_table_is_sampled_by_the_rule_the_run_applies_once_timed():
    text = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=2478, held_out=True, steps=1300, every=43,
                                              windows_per_step=16, share=0.2))
    assert text.startswith("Evaluation: about every 43 steps on all 2,478 held-out dev rows if that keeps evaluations "
                           "within 20% of the run's wall time, else on a stratified sample of at least 200 of them")
    assert "the final evaluation scores all 2,478" in text and "decides once it has timed its first steps" in text


def test_tasks_that_score_every_dev_example_and_the_whole_dev_set_as_asked_adapt_the_cadence_alone():
    assert samples_dev_rows("single") and samples_dev_rows("regression")
    assert not samples_dev_rows("squad_v2") and not samples_dev_rows("swag")
    qa = eval_plan_preview(EvalPreviewInput(task="squad_v2", dev_rows=5000, every=500))
    assert "every evaluation scores all 5,000 dev rows (this task's evaluations score every dev example)" in qa
    asked = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=5000, every=500, full_dev=True))
    assert "all 5,000 dev rows (as asked), about every 500 steps or less often" in asked


def test_a_tagging_dev_set_is_sampled_by_sentences_as_the_run_does():
    """A CoNLL dev file's sentences are sampled during training like a table's rows (a long sentence's windows go
    with it), so the launcher promises the sample and the whole dev set at the end, not every sentence each time."""
    assert samples_dev_rows("ner")
    text = eval_plan_preview(EvalPreviewInput(task="ner", dev_rows=3253, steps=900, every=219, windows_per_step=16))
    assert "on all 3,253 dev rows if that keeps evaluations within 15%" in text
    assert "else on a stratified sample of at least 200 of them" in text and "scores all 3,253" in text
    assert "score every dev example" not in text


def test_small_dev_sets_no_share_and_no_dev_data_say_so():
    assert eval_plan_preview(EvalPreviewInput(task="single", dev_rows=0)) == ""
    small = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=150, every=20))
    assert small.startswith("Evaluation: about every 20 steps on all 150 dev rows, as set")
    fixed = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=3000, every=20, share=0))
    assert "not fitted to the run's time" in fixed
    ends = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=3000, every=0))
    assert ends == "Evaluation: before training and at the end only, on all 3,000 dev rows (Evaluate every 0)."


def test_rates_of_past_runs_give_the_plan_and_the_whole_runs_time():
    """1,000 steps of 16 rows at 40 rows/s train in 400 s; a fifth of the wall time leaves 100 s of evaluations:
    the final one on 2,478 rows at 200 rows/s takes 12.4 s, so the 24 evaluations every 43 steps get a sample."""
    text = eval_plan_preview(EvalPreviewInput(task="single", dev_rows=2478, steps=1000, windows_per_step=16,
                                              every=43, share=0.2, train_rate=40.0, eval_rate=200.0,
                                              measured_runs=2))
    assert text.startswith("Expected, at the rates 2 past runs of this model measured here: Evaluate every 43 steps "
                           "on a stratified sample of 730 of the 2,478 dev rows")
    assert "Whole run about 8:20" in text and "re-plans from its own rates" in text


def test_the_evaluation_line_summary_is_one_short_sentence_of_the_plan():
    """The line under the form reads one sentence (the whole explanation is its tooltip and "more…"): with past
    runs' rates the cadence, the rows and the whole run's time; with a rough rate only, the same at rough rates,
    said as rough; with no rate at all, what the run will do, without a number; a one-sentence case as is."""
    from explorer.ui.launch.eval_plan_preview import eval_plan_summary

    timed = EvalPreviewInput(task="single", dev_rows=2478, steps=1000, windows_per_step=16, every=43, share=0.2,
                             train_rate=40.0, eval_rate=200.0, measured_runs=2)
    assert eval_plan_summary(timed) == ("Evaluation: every 43 steps on a sample of 730 of the 2,478 dev rows, 200 of "
                                        "them at step 0; whole run about 8:20 (estimate from past runs).")
    rough = EvalPreviewInput(task="single", dev_rows=2478, held_out=True, steps=1300, every=43, windows_per_step=16,
                             share=0.2, rough_rate=3.0)
    assert eval_plan_summary(rough).startswith("Evaluation, rough plan: every 43 steps on a sample of ")
    assert eval_plan_summary(rough).endswith("(no past run here).")
    rule = dataclasses.replace(rough, rough_rate=0.0)
    assert eval_plan_summary(rule) == ("Evaluation: the run picks the cadence and sample of the 2,478 held-out dev rows "
                                       "after timing its first steps and evaluation, within 20% of its time.")
    qa = eval_plan_summary(EvalPreviewInput(task="squad_v2", dev_rows=5000, every=500))
    assert qa == "Evaluation: about every 500 steps or less often, on all 5,000 dev rows, within 15% of the run's time."
    ends = EvalPreviewInput(task="single", dev_rows=3000, every=0)
    assert eval_plan_summary(ends) == eval_plan_preview(ends)
    small = EvalPreviewInput(task="squad_v1", dev_rows=35, every=23, what="dev questions")   # scored whole, as set
    assert eval_plan_summary(small) == eval_plan_preview(small)
    assert eval_plan_summary(small).endswith("as set (a dev set this small costs little next to training).")
    fixed = EvalPreviewInput(task="single", dev_rows=3000, every=20, share=0)
    assert eval_plan_summary(fixed) == eval_plan_preview(fixed)
    assert eval_plan_summary(EvalPreviewInput(task="single", dev_rows=0)) == ""
    for p in (timed, rough, rule, ends):
        assert len(eval_plan_summary(p)) <= 160, eval_plan_summary(p)   # two lines at most at 1280x800


def _past_run(model: str, rate: float) -> RunState:
    s = RunState(run_id=f"r{rate}", status=run_status.FINISHED, config={"model": model})
    s.apply({"run_id": s.run_id, "event": "eval", "time": 1.0, "step": 10, "metrics": {}, "rows_per_second": rate,
             "dev_rows": 400, "dev_total": 400})
    return s


def test_the_eval_rate_is_the_median_of_past_runs_of_the_same_model():
    runs = [_past_run("m", 100.0), _past_run("m", 300.0), _past_run("m", 200.0), _past_run("other", 5.0)]
    assert measured_eval_rate(runs, "m") == (200.0, 3)
    assert measured_eval_rate(runs, "none") == (0.0, 0)


def test_the_forms_plan_counts_a_dev_file_or_the_rows_held_out_of_the_training_file():
    cfg = TrainConfig(task="single", train="t.csv", epochs=1, batch_size=16, eval_every=40)
    values = {"batch_size": 16, "gradient_accumulation_steps": 1, "time_budget_minutes": 0.0, "model": cfg.model,
              "train_cap": 0, "epochs": 1, "max_steps": 0, "task": "single"}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": 24783}}
    assert plan.dev_rows(cfg) == (2478, True)                    # 10% held out, as the Dev data preview says
    assert "2,478 held-out dev rows" in plan.eval_preview(cfg)
    with_dev = TrainConfig(task="single", train="t.csv", dev="d.csv", epochs=1, batch_size=16)
    plan.dev_result = {"ok": True, "counts": {"examples": 872}}
    assert plan.dev_rows(with_dev) == (872, False)
    squad = TrainConfig(task="squad_v2", train="t.json", dev="d.json", epochs=1, batch_size=16, eval_every=500)
    plan.dev_result = {"ok": True, "counts": {"articles": 35, "questions": 11873}}
    assert plan.dev_rows(squad) == (11873, False)
    assert "scores all 11,873 dev questions" in plan.eval_preview(squad)
    plan.dev_result = None
    assert plan.eval_preview(with_dev) == ""                     # not counted yet: nothing said


def test_the_evaluation_note_counts_the_dev_rows_after_dev_cap():
    """Dev cap 100 on a 3,250-row dev file: the run evaluates 100 rows, and the note says so (not "all 3,250")."""
    values = {"batch_size": 16, "gradient_accumulation_steps": 1, "time_budget_minutes": 0.0, "model": "bundled:minilm",
              "train_cap": 0, "epochs": 1, "max_steps": 0, "task": "single"}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": 24783}}
    plan.dev_result = {"ok": True, "counts": {"examples": 3250}}
    capped = TrainConfig(task="single", train="t.csv", dev="d.csv", epochs=1, batch_size=16, eval_every=40, dev_cap=100)
    assert plan.dev_rows(capped) == (100, False)
    assert "100 dev rows" in plan.eval_preview(capped) and "3,250" not in plan.eval_preview(capped)
    held = TrainConfig(task="single", train="t.csv", epochs=1, batch_size=16, eval_every=40, dev_cap=100)
    assert plan.dev_rows(held) == (100, True)


def test_an_evaluate_every_the_run_will_not_keep_is_said_at_the_field_as_the_line_says_it():
    """Evaluate every 6 while past runs' rates make the run evaluate about every 28 steps: the field's note says
    28 and why, the number the Evaluation line gives; a cadence that fits gets no note."""
    import dataclasses

    from explorer.ui.launch.eval_plan_preview import slower_cadence_note

    p = EvalPreviewInput(task="regression", dev_rows=1500, steps=600, windows_per_step=16, every=6, share=0.2,
                         train_rate=40.0, eval_rate=100.0, measured_runs=2)
    line, note = eval_plan_preview(p), slower_cadence_note(p)
    assert "Evaluate every 28 steps (not every 6: more often would not fit)" in line
    assert note.startswith("Evaluate every 6: at the rates past runs of this model measured here, the run will "
                           "evaluate about every 28 steps, since more often would take over 20% of its wall time")
    assert slower_cadence_note(dataclasses.replace(p, every=60)) == ""      # fits: the field is what happens
    assert slower_cadence_note(dataclasses.replace(p, train_rate=0.0)) == ""   # no rates: nothing to say yet


def test_the_evaluation_line_and_the_fields_note_say_one_plan_at_rough_rates():
    """No past run of the model: Evaluate every 22 (the task's evaluations per epoch) while the rough plan evaluates
    every 24 steps. The line says 24 and that the field's 22 is fitted, the field's note says 24 too; where the plan
    keeps 22 neither says anything more."""
    import dataclasses

    from explorer.ui.launch.eval_plan_preview import eval_plan_summary, slower_cadence_note

    p = EvalPreviewInput(task="single", dev_rows=872, steps=300, bound_steps=300, every=22, windows_per_step=16,
                         share=0.2, rough_rate=3.0)
    line, note = eval_plan_summary(p), slower_cadence_note(p)
    assert "every 24 steps" in line and "(the field's 22, fitted to its time)" in line and len(line) <= 160, line
    assert note.startswith("Evaluate every 22: at rough rates (no past run of this model and task here), the run "
                           "will evaluate about every 24 steps"), note
    kept = dataclasses.replace(p, every=60)
    assert "the field's" not in eval_plan_summary(kept) and slower_cadence_note(kept) == ""


def test_the_forms_evaluate_every_note_uses_past_runs_rates():
    cfg = TrainConfig(task="regression", train="t.csv", epochs=1, batch_size=16, eval_every=6, eval_share=0.2)
    values = {"batch_size": 16, "gradient_accumulation_steps": 1, "time_budget_minutes": 0.0, "model": cfg.model,
              "train_cap": 0, "epochs": 1, "max_steps": 0, "task": "regression"}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": 15_000}}
    rough = plan.eval_note(cfg)   # no past run: the rough plan's cadence, the one the Evaluation line says
    assert rough.startswith("Evaluate every 6: at rough rates (no past run of this model and task here), the run "
                            "will evaluate about every "), rough
    assert rough.split("about every ")[1].split(" steps")[0] in plan.eval_summary(cfg)
    past = RunState(run_id="past", status=run_status.FINISHED, config={"model": cfg.model, "task": "regression",
                                                                        "batch_size": 16})
    past.apply({"run_id": "past", "event": "step", "time": 1.0, "step": 10, "loss": 1.0, "samples_per_second": 40.0})
    past.apply({"run_id": "past", "event": "eval", "time": 2.0, "step": 10, "metrics": {}, "rows_per_second": 100.0,
                "dev_rows": 400, "dev_total": 400})
    plan.past_runs = lambda: [past]
    note = plan.eval_note(cfg)
    assert note.startswith("Evaluate every 6: at the rates past runs of this model measured here, the run will "
                           "evaluate about every ")
    assert note.split("about every ")[1].split(" steps")[0] in plan.eval_preview(cfg)


def test_the_held_out_rows_the_launcher_counts_are_the_runs_stratified_split_of_its_capped_rows():
    """The estimate counts the dev rows by the run's own rule (per class rounding), from the class ids the check
    read, of the rows the run's Train cap keeps: a stratified 1,200 of the whole file (6 + 112 + 2 = 120 held
    out), not its first 1,200 rows (75 + 25 + 19 = 119)."""
    from explorer.core.data.sample import capped_rows
    from explorer.core.data.split import stratified_split

    ids = [0] * 754 + [1] * 254 + [2] * 192 + [1] * 13_440
    cfg = TrainConfig(task="single", train="t.csv", epochs=1, batch_size=16, eval_every=40, train_cap=1200)
    values = {"batch_size": 16, "gradient_accumulation_steps": 1, "time_budget_minutes": 0.0, "model": cfg.model,
              "train_cap": 1200, "epochs": 1, "max_steps": 0, "task": "single"}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": len(ids)}, "class_ids": ids}
    kept = [ids[i] for i in capped_rows(len(ids), 1200, cfg.dev_split_seed(), ids)]
    run_split, _ = stratified_split(kept, cfg.resolved_dev_fraction(), cfg.dev_split_seed())
    assert plan.dev_rows(cfg) == (len(run_split), True) == (120, True)
    assert "120 held-out dev rows" in plan.eval_preview(cfg)


def test_the_data_check_reads_the_class_ids_in_file_order(tmp_path):
    from explorer.ui.launch.data_preview import preview_data

    path = tmp_path / "t.tsv"
    path.write_text("sentence\tlabel\n" + "".join(f"text {i}\t{'ab'[i % 3 == 0]}\n" for i in range(9)))
    res = preview_data(str(path), "single")
    names = res["class_counts"]
    assert res["ok"] and len(res["class_ids"]) == 9 and len(set(res["class_ids"])) == len(names) == 2


def _timed_run(run_id: str, model: str, task: str, max_seq_length: int | None, sps: float, rows_per_s: float,
               batch_size: int = 16, started: float = 1.0):
    s = RunState(run_id=run_id, status=run_status.FINISHED,
                 config={"model": model, "task": task, "max_seq_length": max_seq_length, "batch_size": batch_size})
    s.started_at = started
    s.apply({"run_id": run_id, "event": "step", "time": 1.0, "step": 10, "loss": 1.0, "samples_per_second": sps})
    s.apply({"run_id": run_id, "event": "eval", "time": 2.0, "step": 10, "metrics": {}, "rows_per_second": rows_per_s,
             "dev_rows": 400, "dev_total": 400})
    return s


def _estimate_plan(cfg, past):
    values = {"batch_size": 16, "gradient_accumulation_steps": 1, "time_budget_minutes": 0.0, "model": cfg.model,
              "train_cap": 2000, "epochs": 1, "max_steps": 0, "task": "single"}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": 67_349}}
    plan.dev_result = {"ok": True, "counts": {"examples": 872}}
    plan.past_runs = lambda: past
    return plan


def test_only_past_runs_of_the_same_task_length_and_batch_estimate_the_run():
    """A SQuAD run's rates (384-token windows of a question and a passage) said an SST-2 run of 128 tokens would
    take 5:48; it took 1:18. A run of the same task, max_seq_length and batch size gives the estimate; without one,
    the latest run of the same task at another length or batch gives a rough one, said as rough; runs of another
    task never do, and with none the whole run's time is rough, from the built-in rate, and says so."""
    from explorer.ui.launch.eval_plan_preview import comparable_runs

    cfg = TrainConfig(task="single", train="t.tsv", dev="d.tsv", epochs=1, batch_size=16, eval_every=21,
                      max_seq_length=128)
    squad = _timed_run("squad", cfg.model, "squad_v1", 384, 4.0, 10.0)
    long_single = _timed_run("long", cfg.model, "single", 512, 5.0, 20.0)
    near = _timed_run("near", cfg.model, "single", 120, 40.0, 200.0)
    other_batch = _timed_run("batch32", cfg.model, "single", 128, 60.0, 200.0, batch_size=32)
    alike = _timed_run("alike", cfg.model, "single", 128, 40.0, 200.0, started=5.0)
    default_len = _timed_run("default", cfg.model, "single", None, 40.0, 200.0, started=3.0)   # the task's: 128
    assert comparable_runs([squad, long_single, near, other_batch, default_len, alike], cfg.model, "single", 128,
                           16) == [alike, default_len]   # the latest first
    plan = _estimate_plan(cfg, [squad, long_single, near, other_batch])
    line = plan.eval_preview(cfg)
    assert "(estimate from the rates of past run batch32 (at batch size 32, not this run's: rough))" in line
    assert "(rough: no past run" not in line   # the nearest length first: 128 at another batch size
    assert plan.eval_preview_tip(cfg).startswith("Rates from past run batch32 (same model and task, at batch size 32: "
                                                 "this run's max_seq_length 128")
    plan.past_runs = lambda: [squad, long_single, near]
    assert "(estimate from the rates of past run near (at max_seq_length 120, not this run's: rough))" in \
        plan.eval_preview(cfg)
    plan.past_runs = lambda: [squad]
    line = plan.eval_preview(cfg)
    assert "estimate from the rates" not in line
    assert "Whole run about" in line and "Rough, with no past run of this model and task here" in line
    assert "(the built-in rate; 1 past run of this model trained another task, max_seq_length, batch size or " \
        "device)" in line
    assert "rough, from the built-in rate" in plan.eval_preview_tip(cfg)
    plan.past_runs = lambda: [squad, alike]
    line = plan.eval_preview(cfg)
    assert "(estimate from the rates of past run alike)" in line and "rough" not in line
    assert plan.eval_preview_tip(cfg).startswith("Rates from past run alike (same model, task, max_seq_length 128")


def test_a_run_of_another_task_at_a_similar_length_gives_a_rough_rate_before_the_built_in_one():
    """No past run of the model on the form's task, but runs of it on other tasks: the one of a similar
    max_seq_length (not SQuAD's 384 against 128) gives the whole run's rough time and the time budget's rate, said
    as from a run of another task; the built-in rate only when none is similar."""
    cfg = TrainConfig(task="single", train="t.tsv", dev="d.tsv", epochs=1, batch_size=16, eval_every=21,
                      max_seq_length=128)
    squad = _timed_run("squad", cfg.model, "squad_v1", 384, 4.0, 10.0, started=9.0)
    stance = _timed_run("stance-1", cfg.model, "pair", 120, 30.0, 100.0)
    plan = _estimate_plan(cfg, [squad, stance])
    plan.values["max_seq_length"] = 128
    line = plan.eval_preview(cfg)
    assert "estimate from the rates" not in line   # another task's evaluations are not this task's
    assert "at 30.0 training rows/s (from a run of another task, stance-1 (pair))" in line
    assert "built-in" not in line and "stance-1 (pair)" in plan.eval_preview_tip(cfg)
    assert plan.train_rate() == 30.0
    plan.past_runs = lambda: [squad]
    assert "built-in" in plan.eval_preview(cfg) and plan.train_rate() != 4.0


def test_a_faster_past_run_of_another_length_does_not_speed_up_the_estimate():
    """Of two past runs of the model, the one of another max_seq_length trained 2.6 times faster: the whole run's
    time comes from the one of the form's length, and its tooltip names that run."""
    cfg = TrainConfig(task="single", train="t.tsv", dev="d.tsv", epochs=1, batch_size=16, eval_every=21,
                      max_seq_length=128)
    short_fast = _timed_run("short-fast", cfg.model, "single", 112, 104.0, 200.0, started=9.0)   # the latest
    same = _timed_run("same-length", cfg.model, "single", 128, 40.0, 200.0, started=1.0)
    plan = _estimate_plan(cfg, [short_fast, same])
    line = plan.eval_preview(cfg)
    assert "(estimate from the rates of past run same-length)" in line and "40.0 training windows/s" in line
    assert "short-fast" not in line and "104.0" not in line
    assert "same-length" in plan.eval_preview_tip(cfg) and "short-fast" not in plan.eval_preview_tip(cfg)


def test_the_train_cap_note_says_which_rows_and_questions_a_cap_keeps():
    """A table's cap keeps a stratified random N (scores: a random N) with the run's seed; a SQuAD file's cap a
    random N of its questions stratified by answerable / unanswerable; CoNLL and SWAG files keep their first N
    sentences and examples; no cap, no note."""
    from explorer.core.specs.tasks import train_cap_note

    assert train_cap_note("single", 1500, 42, 10_314).startswith(
        "Train cap 1,500: the run trains on a stratified random 1,500 of the 10,314 training rows (each class in its "
        "share, seed 42)")
    assert "a random 10 of the training rows (seed 3)" in train_cap_note("regression", 10, 3)
    assert train_cap_note("squad_v2", 100, 1) == (
        "Train cap 100: the run trains on a random 100 of the training questions, drawn across the articles and "
        "stratified by answerable / unanswerable (each in its share, seed 1).")
    assert "first 5 sentences" in train_cap_note("ner", 5, 1) and "first 5 examples" in train_cap_note("swag", 5, 1)
    assert train_cap_note("single", 0, 1) == ""


def test_a_checkpoint_of_the_bundled_encoder_is_estimated_as_the_bundled_encoder(tmp_path):
    """Fine-tuning a run's checkpoint folder (Fine-tune on reviewed rows) was told "about 4 h 44 min" from the rate
    of an unknown model while the bundled encoder it was made from had just trained here at 29 windows/s: a model
    of the same architecture (config.json) counts as the same model, for past runs and for the built-in rate."""
    import shutil
    from pathlib import Path

    from explorer.core.models.sources import architecture_key, resolve_source
    from explorer.core.models.speed import builtin_rate
    from explorer.core.runs.throughput import DEFAULT_SPS

    checkpoint = tmp_path / "run" / "checkpoints" / "best"
    checkpoint.mkdir(parents=True)
    shutil.copy(Path(resolve_source("bundled:minilm")) / "config.json", checkpoint / "config.json")
    assert architecture_key(str(checkpoint)) == architecture_key("bundled:minilm")
    assert builtin_rate(str(checkpoint)) == DEFAULT_SPS["bundled:minilm"]
    cfg = TrainConfig(model=str(checkpoint), task="single", train="t.tsv", dev="d.tsv", epochs=1, batch_size=16,
                      eval_every=21, max_seq_length=128)
    first = _timed_run("first", "bundled:minilm", "single", 128, 29.0, 200.0)
    plan = _estimate_plan(cfg, [first])
    assert "(estimate from the rates of past run first)" in plan.eval_preview(cfg)
    assert plan.train_rate() == 29.0


def test_the_whole_run_time_says_it_assumes_the_machine_alone_while_a_run_trains():
    """The estimate comes from rates a run measured with the machine to itself (said 2:04, took 6:20 beside another
    run): while a run of this machine is training, the time reads "alone" and the line says which run trains and to
    expect longer (the tooltip names the run), without a guessed factor; a finished run changes nothing."""
    from explorer.ui.launch.eval_plan_preview import eval_plan_summary

    cfg = TrainConfig(task="single", train="t.tsv", dev="d.tsv", epochs=1, batch_size=16, eval_every=21,
                      max_seq_length=128)
    alike = _timed_run("alike", cfg.model, "single", 128, 40.0, 200.0)
    plan = _estimate_plan(cfg, [alike])
    quiet = plan.eval_summary(cfg)
    assert "whole run about" in quiet and "alone" not in quiet and "training now" not in quiet
    going = RunState(run_id="busy-run", status=run_status.RUNNING, config={"model": cfg.model, "task": "single"})
    plan.past_runs = lambda: [alike, going]
    busy = plan.eval_summary(cfg)
    time = quiet.split("whole run about ")[1].split(" ")[0]
    assert f"whole run about {time} alone (estimate" in busy and busy.endswith("A run is training now: expect longer.")
    assert len(busy) <= 160, busy   # two lines at most at 1280x800
    assert plan.eval_preview(cfg).endswith("Run busy-run is training now: expect longer.")
    rough = EvalPreviewInput(task="single", dev_rows=2478, held_out=True, steps=1300, every=43, windows_per_step=16,
                             share=0.2, rough_rate=3.0, busy="busy-run")
    assert " alone." in eval_plan_summary(rough) and "training now" in eval_plan_summary(rough)
    assert eval_plan_summary(rough).startswith("Evaluation (rough): ")
    assert len(eval_plan_summary(rough)) <= 160, eval_plan_summary(rough)


def said_plan(line: str) -> tuple[int, int, int]:
    """(the cadence, the rows of each evaluation during training, the rows of the evaluation at step 0) an Evaluation
    line names: 0 for "at the start and the end"; the rows are those of the sample, or all dev rows."""
    import re

    every = re.search(r"every ([\d,]+) steps", line)
    if ", from step 0" in line:   # the step-0 evaluation scores the rows of the others
        every_rows = said_plan(line.replace(", from step 0", ""))
        return every_rows[0], every_rows[1], every_rows[1]
    sample = re.search(r"on (?:a sample of )?([\d,]+) of (?:the )?([\d,]+)", line)
    whole = re.search(r"on all ([\d,]+)", line)
    first = re.search(r"([\d,]+) (?:of them |of the [\d,]+ [\w -]+ )?at step 0", line)

    def number(m, group=1):
        return int(m.group(group).replace(",", "")) if m else 0
    rows = number(sample) if sample else number(whole)
    if not every:   # at step 0 and at the end only: the rows of the one at step 0
        return 0, number(first) or rows, number(first) or rows
    return number(every), rows, number(first) or rows


def assert_line_gives(line: str, own, dev_total: int) -> None:
    """The Evaluation ``line`` names the cadence and the sample of the run's own plan ``own`` and its first
    evaluation (eval_schedule.EvalSchedule's rows before its plan: the sample's first rows)."""
    from explorer.core.training.eval_plan import evaluations_between
    from explorer.core.training.eval_schedule import first_rows

    every = own.eval_every if evaluations_between(own.steps, own.eval_every) else 0
    first = first_rows(dev_total, planned=True, full_dev=own.full_dev)
    rows = own.dev_rows if every else (first if first < dev_total else dev_total)
    assert said_plan(line) == (every, rows, first), (line, own)


def _runs_own_plan(cfg: TrainConfig, dev_total: int, *, train_rate: float, eval_rate: float, steps_total: int):
    """The plan the run makes (eval_schedule, eval_budget) once its probe evaluation and its first 10 steps are
    timed at these rates: None when it plans none."""
    from types import SimpleNamespace

    from explorer.core.training.eval_budget import steps_for_plan
    from explorer.core.training.eval_schedule import EvalSchedule

    schedule = EvalSchedule(cfg, dev_total, sampleable=True)
    schedule.timed(schedule.rows, schedule.rows / eval_rate)
    windows = cfg.batch_size * cfg.gradient_accumulation_steps
    step, seconds = 10, 10 * windows / train_rate
    run = SimpleNamespace(config=cfg, clock=SimpleNamespace(seconds=lambda: seconds),
                          progress=SimpleNamespace(step=step), first_step=None, steps_total=steps_total,
                          wall=SimpleNamespace(total=60.0 * cfg.time_budget_minutes) if cfg.time_budget_minutes else None,
                          planned_steps=lambda: steps_total)
    return schedule.make_plan(steps=steps_for_plan(run), windows_per_step=windows, train_rate=train_rate)


def test_the_evaluation_sentence_gives_the_rows_and_evaluations_the_runs_own_plan_chooses():
    """The launcher said a sample of 358 of 511 dev rows and 6 evaluations for a time-budgeted run that then
    planned around the steps of its budget's training share and chose otherwise: at the rates of a past run of the
    same settings, the line's cadence, rows and number of evaluations are those the run plans at those rates, with
    and without a Time budget, with a Dev cap above the dev rows, and for a dev set too small to sample."""
    from explorer.core.specs.tasks import run_steps

    rates = {"train_rate": 40.0, "eval_rate": 600.0}
    cases = [(dict(epochs=1, eval_every=10), 511),
             (dict(epochs=3, eval_every=10, time_budget_minutes=1.0), 511),
             (dict(epochs=3, eval_every=10, time_budget_minutes=1.0, eval_share=0.3), 2478),
             (dict(epochs=1, eval_every=10, dev_cap=5000), 511),
             (dict(epochs=1, eval_every=10, dev_cap=400), 2478),
             (dict(epochs=1, eval_every=10), 240)]
    for fields, dev in cases:
        cfg = TrainConfig(task="single", train="t.csv", dev="d.csv", batch_size=16, max_seq_length=128, **fields)
        values = {"batch_size": 16, "gradient_accumulation_steps": 1, "model": cfg.model, "train_cap": 0,
                  "max_steps": 0, "task": "single", "max_seq_length": 128,
                  "time_budget_minutes": cfg.time_budget_minutes, "epochs": cfg.epochs}
        plan = RunPlan(values)
        plan.train_result = {"ok": True, "counts": {"examples": 2000}}
        plan.dev_result = {"ok": True, "counts": {"examples": dev}}
        plan.past_runs = lambda: [_timed_run("past", cfg.model, "single", 128, rates["train_rate"],
                                             rates["eval_rate"])]
        total = run_steps(2000, 16, epochs=cfg.epochs)[1]
        dev_total = min(dev, cfg.dev_cap) if cfg.dev_cap else dev
        own = _runs_own_plan(cfg, dev_total, steps_total=total, **rates)
        line, whole = plan.eval_summary(cfg), plan.eval_preview(cfg)
        if own is None:
            assert dev_total < 250 and f"on all {dev_total:,} dev rows, as set" in line, (fields, line)
            continue
        assert line.startswith("Evaluation: ") and "; whole run about" in line, line
        assert_line_gives(line, own, dev_total)
        assert f"on {own.rows_text()}" in whole and f"{own.evaluations + 1} evaluations" in whole, (fields, whole)


def _new_users_form(budget_minutes: float, past: list):
    """The form of a run of SST-2's size (67,349 training rows, 872 dev rows) with the task's defaults and a Time
    budget, Evaluate every fitted to it as the launcher fits it, on a machine with ``past`` runs."""
    from explorer.core.specs.tasks import task_defaults

    cfg = TrainConfig(task="single", train="train.tsv", dev="dev.tsv", time_budget_minutes=budget_minutes,
                      **{k: v for k, v in task_defaults("single").items() if v is not None})
    values = {"batch_size": cfg.batch_size, "gradient_accumulation_steps": 1, "model": cfg.model, "train_cap": 0,
              "max_steps": 0, "task": "single", "time_budget_minutes": budget_minutes, "epochs": cfg.epochs}
    plan = RunPlan(values)
    plan.train_result = {"ok": True, "counts": {"examples": 67_349}}
    plan.dev_result = {"ok": True, "counts": {"examples": 872}}
    plan.past_runs = lambda: past
    return dataclasses.replace(cfg, eval_every=plan.eval_every()), plan


def test_with_no_past_run_the_line_gives_the_cadence_the_runs_rule_chooses_at_rough_rates():
    """With no past run here and a 3-minute Time budget, the line said "about every 4 steps" (Evaluate every, fitted
    to the steps the built-in rate allows) and the run, once timed, chose every 48. With no measured rates the line
    gives the cadence and rows the run's own planning chooses at the rough rates: the training rate the whole run's
    time uses, and ROUGH_EVAL_FACTOR times it in dev rows/s; said as rough. The config keeps the field's value
    (the command's --eval-every) and the tooltip says it is only the cadence asked for. The same holds at the rough
    rate of a run of another task."""
    from explorer.core.models.speed import builtin_rate
    from explorer.core.specs.tasks import run_steps
    from explorer.ui.launch.eval_plan_preview import ROUGH_EVAL_FACTOR

    for past, rate in (([], builtin_rate("bundled:minilm", "single")),
                       ([_timed_run("stance-1", "bundled:minilm", "pair", 128, 49.3, 65.7)], 49.3)):
        cfg, plan = _new_users_form(3.0, past)
        bound = run_steps(67_349, cfg.batch_size, epochs=cfg.epochs)[1]
        own = _runs_own_plan(cfg, 872, train_rate=rate, eval_rate=ROUGH_EVAL_FACTOR * rate, steps_total=bound)
        line = plan.eval_summary(cfg)
        assert_line_gives(line, own, 872)
        assert line.startswith("Evaluation at rough rates: "), line   # the run re-plans at the rates it times
        whole = plan.eval_preview(cfg)
        assert f"on {own.rows_text()}" in whole and f"{own.evaluations + 1} evaluations" in whole, whole
        assert f"Evaluate every {cfg.eval_every} (the command's --eval-every) is the cadence asked for" in whole
        assert f"dev rows/s {ROUGH_EVAL_FACTOR:g} times that" in plan.eval_preview_tip(cfg)
        assert plan.eval_note(cfg) == ""   # the field is not marked on rough rates
        assert len(line) <= 160, line


def test_a_tables_built_in_rate_is_that_of_short_inputs_so_a_first_run_plans_evaluations_while_it_trains():
    """The built-in rate was measured on full-length QA windows; a table's row trains about SHORT_INPUT_SPEEDUP
    times as fast. At the QA figure a first SST-2 run's 3-minute budget fitted 16 steps and the line promised
    evaluations "at the start and the end only", while the run evaluated every 48 steps; at a table's figure the
    line plans evaluations while it trains. QA and multiple choice keep the QA figure."""
    from explorer.core.models.speed import builtin_rate
    from explorer.core.runs.throughput import DEFAULT_SPS, SHORT_INPUT_SPEEDUP

    qa = DEFAULT_SPS["bundled:minilm"]
    assert builtin_rate("bundled:minilm", "squad_v1") == builtin_rate("bundled:minilm", "swag") == qa
    for task in ("single", "pair", "regression", "ner"):
        assert builtin_rate("bundled:minilm", task) == qa * SHORT_INPUT_SPEEDUP, task
    cfg, plan = _new_users_form(3.0, [])
    line = plan.eval_summary(cfg)
    assert "at step 0, all at the end" not in line and "rough" in line, line
    every = int(line.split("every ")[1].split(" steps")[0].replace(",", ""))
    assert 0 < every < plan.planned_steps()[1], line


def test_the_line_names_the_sample_and_the_first_evaluation_the_run_takes_at_the_same_rates_tables_and_tagging():
    """A fresh SST-2 form with a 3-minute Time budget said "every 42 steps on a sample of 387 of the 872 dev rows"
    and no word of the evaluation at step 0 on 200 rows; the run took another sample at the rates it timed. For a
    table and a tagging file, with a past run's rates and with none (rough rates, said so), the line names the
    cadence and the sample the run's own planning takes at those rates, and its first evaluation at step 0."""
    from explorer.core.models.speed import builtin_rate
    from explorer.core.specs.tasks import run_steps
    from explorer.ui.launch.eval_plan_preview import ROUGH_EVAL_FACTOR

    for task, counts, dev in (("single", "examples", 872), ("ner", "sentences", 3250)):
        for budget in (0.0, 3.0):
            for past in (True, False):
                cfg = TrainConfig(task=task, train="t.txt", dev="d.txt", batch_size=16, max_seq_length=128, epochs=1,
                                  eval_every=20, time_budget_minutes=budget)
                values = {"batch_size": 16, "gradient_accumulation_steps": 1, "model": cfg.model, "train_cap": 0,
                          "max_steps": 0, "task": task, "max_seq_length": 128, "time_budget_minutes": budget,
                          "epochs": 1}
                plan = RunPlan(values)
                plan.train_result = {"ok": True, "counts": {counts: 14_000}}
                plan.dev_result = {"ok": True, "counts": {counts: dev}}
                runs = [_timed_run("past", cfg.model, task, 128, 40.0, 150.0)] if past else []
                plan.past_runs = lambda runs=runs: runs
                train_rate = 40.0 if past else builtin_rate(cfg.model, task)
                eval_rate = 150.0 if past else ROUGH_EVAL_FACTOR * train_rate
                own = _runs_own_plan(cfg, dev, train_rate=train_rate, eval_rate=eval_rate,
                                     steps_total=run_steps(14_000, 16, epochs=1)[1])
                line = plan.eval_summary(cfg)
                assert_line_gives(line, own, dev)
                assert ("at step 0" in line or "from step 0" in line) and len(line) <= 160, line
                rough = ("Evaluation at rough rates: ", "Evaluation, rough plan: ", "Evaluation (rough): ")
                assert line.startswith(("Evaluation: ",) if past else rough), line   # the shorter heads leave room
                assert "scores 200 of them (the sample's first rows)" in plan.eval_preview(cfg), plan.eval_preview(cfg)


def test_the_evaluation_text_says_when_the_time_budget_leaves_the_run_too_few_steps_to_learn():
    """A 1-minute budget at 3.76 training rows/s fits about 6 steps of 32 rows: the launcher's Evaluation text says
    it with the budget that fits enough; at a rate that fits hundreds of steps, or without a budget, it does not.
    (Its evaluations at 110 dev rows/s leave the budget time to train: at 11 rows/s they would not.)"""
    p = EvalPreviewInput(task="single", dev_rows=1979, held_out=True, steps=372, bound_steps=372, budget_seconds=60.0,
                         windows_per_step=32, every=50, train_rate=3.76, eval_rate=110.0, measured_runs=2)
    assert eval_plan_preview(p).endswith(
        " The run trains about 6 steps in its 60 s budget (evaluating its 1,979 held-out dev rows takes the rest): "
        "too few to learn; give it about 9 minutes.")
    assert "too few to learn" not in eval_plan_preview(dataclasses.replace(p, train_rate=251.0, eval_rate=700.0))
    assert "too few to learn" not in eval_plan_preview(dataclasses.replace(p, budget_seconds=0.0))


def test_the_evaluation_text_says_when_the_time_budget_cannot_hold_the_evaluations_before_and_after_training():
    """1,500 dev rows of a regression table at 53 dev rows/s: the evaluation before training (200 sampled rows) and the
    final one on all rows (a best rescored on them besides) take about 60 s, more than a 1-minute budget, which the
    run refuses after its first evaluation. The launcher says so before Launch, by the run's own check, with a
    budget and a Dev cap that leave time; a 10-minute budget or a small Dev cap says nothing of it."""
    from explorer.core.training.budget import seconds_at_start, training_seconds_left

    p = EvalPreviewInput(task="regression", dev_rows=1500, steps=180, bound_steps=180, budget_seconds=60.0,
                         windows_per_step=32, every=50, train_rate=40.0, eval_rate=53.0, measured_runs=1)
    first, ahead = seconds_at_start(first_rows=200, dev_total=1500, eval_rate=53.0)
    assert training_seconds_left(60.0, first, ahead) == 0.0   # what the run checks before its first step
    text = eval_plan_preview(p)
    assert "The 60 s budget leaves no time to train: the evaluation before training and the final one on all 1,500 " \
           "dev rows take about 60 s of it; give the run about 2 minutes, or a Dev cap of at most " in text, text
    assert "too few to learn" not in text
    assert "leaves no time to train" not in eval_plan_preview(dataclasses.replace(p, budget_seconds=600.0))
    assert "leaves no time to train" not in eval_plan_preview(dataclasses.replace(p, dev_rows=300))
    rough = dataclasses.replace(p, train_rate=0.0, eval_rate=0.0, measured_runs=0, rough_rate=17.0)
    assert "leaves no time to train" in eval_plan_preview(rough)
