"""What the Curves page and the Runs list say of a run's dev evaluations beside its curves: points on a stratified dev
sample are drawn hollow, beside filled points on every dev row, named in the readout and in a line under the legend;
a step-0 evaluation (the untrained model) above the best says it is never saved as best."""


def _stance_events(run_id: str = "stance-b", sample_at=(0,), steps=(0, 20, 40, 60)) -> list[dict]:
    """A classifier evaluated on the 200-row sample of its 281 dev rows at ``sample_at``, on all 281 elsewhere."""
    values = {0: 0.748, 20: 0.651, 40: 0.714, 60: 0.716}
    events = [{"event": "started", "run_id": run_id, "config": {"task": "single"}, "steps_total": 60}]
    for step in steps:
        rows = 200 if step in sample_at else 281
        events.append({"event": "eval", "run_id": run_id, "step": step, "metrics": {"accuracy": values[step]},
                       "dev_rows": rows, "dev_total": 281})
    return events


def _tagger_events(run_id: str = "tagger", at_zero: float = 0.039) -> list[dict]:
    """A token tagger whose untrained model scored ``at_zero`` entity F1 and whose trained one 0.0 at step 16."""
    return [{"event": "started", "run_id": run_id, "config": {"task": "ner"}, "steps_total": 16},
            {"event": "eval", "run_id": run_id, "step": 0, "metrics": {"f1": at_zero}},
            {"event": "eval", "run_id": run_id, "step": 16, "metrics": {"f1": 0.0}},
            {"event": "checkpoint", "run_id": run_id, "step": 16, "kind": "best", "metric": "f1", "path": "b"}]


def test_a_dev_samples_points_are_told_apart_from_all_rows_points_in_the_model():
    """stance-b's step-0 point scored the 200-row sample, the later ones all 281 rows: the model marks that one
    point, and one line under the legend says what hollow and filled dots count; a run on all rows says nothing."""
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.eval_rows import point_event, rows_phrase, sample_mask
    from explorer.ui.runs.state import RunState

    mixed = RunState.from_events("stance-b", _stance_events())
    assert sample_mask(mixed, "dev/accuracy").tolist() == [True, False, False, False]
    assert rows_phrase(point_event(mixed, "dev/accuracy", 1)) == "on a 200-row stratified sample of the 281 dev rows"
    assert rows_phrase(point_event(mixed, "dev/accuracy", 39)) == "on all 281 dev rows"
    model = CurvesModel()
    model.set_runs([mixed])
    notes = " ".join(model.run_notes())
    assert "stance-b: ○ hollow dots score a 200-row stratified sample of the 281 dev rows, ● filled dots all" in notes
    whole = RunState.from_events("stance-a", _stance_events("stance-a", sample_at=()))
    assert sample_mask(whole, "dev/accuracy") is None
    model.set_runs([whole])
    assert not any("hollow" in n for n in model.run_notes())
    only_sample = RunState.from_events("live", _stance_events("live", sample_at=(0, 20), steps=(0, 20)))
    model.set_runs([only_sample])   # hollow dots, but nothing to tell them from yet: no line
    assert sample_mask(only_sample, "dev/accuracy").tolist() == [True, True]
    assert not any("hollow" in n for n in model.run_notes())


def test_the_curves_draw_a_dev_samples_point_hollow_and_name_its_rows_under_the_pointer(qtbot):
    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    curves = shown_curves_panel(qtbot, 1000, 700)
    curves.set_runs([RunState.from_events("stance-b", _stance_events())])
    curves.redraw_now()
    panel = curves.panels["dev/accuracy"]
    dots = panel.items["stance-b"].dots
    qtbot.waitUntil(lambda: len(dots.x) == 4)
    assert dots.hollow is not None and dots.hollow.tolist() == [True, False, False, False]
    assert dots.x[dots.hollow].tolist() == [0.0]
    qtbot.waitUntil(lambda: "hollow dots" in curves.run_notes.text() and curves.run_notes.isVisible())
    curves.set_crosshair(0)
    assert "(sample)" in panel.header.text()
    assert panel.widget.toolTip() == "stance-b: 74.8 at step 0, on a 200-row stratified sample of the 281 dev rows"
    curves.set_crosshair(40)
    assert "(sample)" not in panel.header.text() and "on all 281 dev rows" in panel.widget.toolTip()
    loss_dots = curves.panels["loss"].items.get("stance-b")
    assert loss_dots is None or loss_dots.dots is None   # the training curves draw no dots, nor any mask


def test_a_step_zero_figure_above_the_best_is_said_never_saved_in_the_curves_and_the_runs_list():
    """A tagger listed 'best entity F1 (%) 0.00 @16' beside a dev curve starting at 3.9: both the Curves' notes
    and the Runs list's Best dev tooltip say the step-0 evaluation is the untrained model, never saved as best."""
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState
    from explorer.ui.runs.step_zero import untrained_note

    tagger = RunState.from_events("tagger", _tagger_events())
    text = "step 0 (before training, 3.90) is never saved as best"
    assert tagger.best_metric()[1:] == (0.0, 16)
    assert untrained_note(tagger) == text
    model = CurvesModel()
    model.set_runs([tagger])
    assert f"tagger: {text}" in model.run_notes()

    class Source:
        names, sizes = {}, {}
    assert text in RunCells(Source()).tooltip(tagger, COLUMNS.index("Best dev")).splitlines()
    no_best = RunState.from_events("early", _tagger_events("early")[:2])   # only the step-0 evaluation so far
    assert no_best.best_metric() is None and untrained_note(no_best) == ""   # just started: nothing to explain yet
    learned = RunState.from_events("learned", _tagger_events("learned", at_zero=0.0))
    assert untrained_note(learned) == ""   # step 0 not above the best: nothing to say


def test_a_best_dev_figure_of_a_dev_sample_says_so_in_the_runs_list():
    """A regression run's best checkpoint was picked on the 200-row sample of its 300 dev rows (Pearson -0.060),
    while Classify: dev set scores all 300 (-0.13): the Runs list's Best dev cell marks it "≈", and its tooltip
    which rows; a best figure on all rows has no mark."""
    from explorer.ui.runs.run_cells import COLUMNS, RunCells
    from explorer.ui.runs.state import RunState

    def events(run_id, best_rows):
        return [{"event": "started", "run_id": run_id, "config": {"task": "regression"}, "steps_total": 94},
                {"event": "eval", "run_id": run_id, "step": 0, "metrics": {"pearson": -0.2},
                 "dev_rows": 200, "dev_total": 300},
                {"event": "eval", "run_id": run_id, "step": 14, "metrics": {"pearson": -0.0596},
                 "dev_rows": best_rows, "dev_total": 300},
                {"event": "checkpoint", "run_id": run_id, "step": 14, "kind": "best", "metric": "pearson",
                 "path": "b"},
                {"event": "eval", "run_id": run_id, "step": 94, "metrics": {"pearson": -0.104},
                 "dev_rows": 300, "dev_total": 300}]

    class Source:
        names, sizes = {}, {}
    cells, col = RunCells(Source()), COLUMNS.index("Best dev")
    sampled = RunState.from_events("stsb", events("stsb", 200))
    assert cells.text(sampled, col).startswith("≈")
    assert "measured on the 200-row stratified sample of the 300 dev rows" in cells.tooltip(sampled, col)
    whole = RunState.from_events("stsb-all", events("stsb-all", 300))
    assert "sample" not in cells.text(whole, col) and cells.text(whole, col)
