"""Rules that hold on every head of the spec (explorer/core/specs/heads.py), one test body each, the heads taken
from the spec (the ``every_head`` fixture): labels mapped to a checkpoint's head rows by name when it is
fine-tuned, the head-size message and ``--new-head``, eval mode and identical outputs, the best-checkpoint
direction of every metric a head reports, no false "indexing errors" warning on a text longer than the window,
undefined correlations. A rule that does not apply to a head says why it is skipped."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from helpers import head_label_names, save_tiny_head_model, tiny_head_model, write_head_data

from explorer.core.specs.heads import Inputs
from explorer.core.specs.tasks import task_for_checkpoint


class _Log:
    """The run's event writer, keeping the ``log`` messages."""

    def __init__(self):
        self.messages: list[str] = []

    def emit(self, event, **fields):
        if event == "log":
            self.messages.append(fields["message"])


def _named_head(head) -> list[str]:
    if not head.named_outputs:
        pytest.skip(f"the {head.name} head's outputs are not named by id2label (nothing to map by name)")
    return list(head_label_names(head).values())


def _task_and_config(head, data: Path, model: Path, **extra):
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    name = task_for_checkpoint(head)
    return get_task(name), TrainConfig(task=name, model=str(model), train=str(data), dev=str(data), **extra)


def _labels_by_name(data) -> list:
    """Every example's gold label(s) as names, whatever the data class (classes, label sets, tags)."""
    names = list(data.label_names)
    if hasattr(data, "label_ids"):
        return [[names[k] for k in row] for row in data.label_ids()]
    return [sorted(names[k] for k in row) if isinstance(row, list) else names[row] for row in data.labels]


def _read(task, config):
    train, dev = task.load(config, "train"), task.load(config, "dev")
    checked = task.check_data(train, dev, config)
    return train, checked if checked is not None else dev


# ---- label mapping by name --------------------------------------------------------------------------------
def test_labels_map_to_the_checkpoints_head_rows_by_name(every_head, tmp_path):
    """A checkpoint whose labels are in another order than the data's (a public NER checkpoint against the
    hub CoNLL data) keeps every head row's meaning: the data's ids are renumbered to the head's, id2label
    is the checkpoint's, and a note says so."""
    from explorer.core.training.setup import fit_head

    names = _named_head(every_head)
    assert every_head.label_mapping, f"{every_head.name}: a head with named outputs must map labels by name"
    order = list(reversed(names))
    model = save_tiny_head_model(tmp_path / "ck", every_head, names=order)
    task, config = _task_and_config(every_head, write_head_data(tmp_path / "data.txt", every_head, names), model)
    train, dev = _read(task, config)
    assert list(train.label_names) != order                     # the data's own order differs
    log = _Log()
    head, train2, dev2 = fit_head(str(model), task, train, dev, config, log)
    assert head == {"num_labels": len(order), "id2label": dict(enumerate(order)), "new_head": False}
    assert list(train2.label_names) == order and list(dev2.label_names) == order
    assert _labels_by_name(train2) == _labels_by_name(train) and _labels_by_name(dev2) == _labels_by_name(dev)
    assert any("mapped to it by name" in m for m in log.messages)


def test_head_rows_the_data_never_uses_are_kept_and_named(every_head, tmp_path):
    """A 5-tag head on 4-tag data: the data's tags are all in the head, so they are mapped by name; the head's
    fifth row is kept (not trained here) and the note names it."""
    from explorer.core.training.setup import fit_head

    names = _named_head(every_head)
    model = save_tiny_head_model(tmp_path / "ck", every_head, names=names)
    task, config = _task_and_config(every_head, write_head_data(tmp_path / "d.txt", every_head, names[:-1]), model)
    train, dev = _read(task, config)
    log = _Log()
    head, train2, _ = fit_head(str(model), task, train, dev, config, log)
    assert head["num_labels"] == len(names) and head["id2label"] == dict(enumerate(names)) and not head["new_head"]
    assert _labels_by_name(train2) == _labels_by_name(train)
    assert any(f"{names[-1]} is not in the data (kept, not trained here)" in m for m in log.messages), log.messages


def test_a_head_without_a_data_label_is_refused_naming_it_or_replaced_with_new_head(every_head, tmp_path):
    """Data with a label the checkpoint's head lacks: refused before any weight is read, naming the head's
    labels, the data's and the missing one ("could not read the weights … torn" before); ``--new-head``
    starts a fresh head for the data's labels and says so."""
    import dataclasses

    from explorer.core.errors import ModelSourceError
    from explorer.core.training.setup import fit_head

    names = _named_head(every_head)
    model = save_tiny_head_model(tmp_path / "ck", every_head, names=names[:-1])
    task, config = _task_and_config(every_head, write_head_data(tmp_path / "d.txt", every_head, names), model)
    train, dev = _read(task, config)
    with pytest.raises(ModelSourceError) as err:
        fit_head(str(model), task, train, dev, config, _Log())
    message = str(err.value)
    assert f"the checkpoint's head has {len(names) - 1} labels ({', '.join(names[:-1])})" in message
    assert f"{names[-1]!r} is not in the head" in message and "--new-head" in message
    log = _Log()
    head, _, _ = fit_head(str(model), task, train, dev, dataclasses.replace(config, new_head=True), log)
    assert head["new_head"] and head["num_labels"] == len(names)
    assert any(m.startswith("new head: the checkpoint's head has") for m in log.messages)


def test_a_refused_head_names_the_labels_missing_on_each_side(every_head, tmp_path):
    """A head whose labels partly match the data's (one renamed, as B-PERSON against B-PER): the refusal names
    the data's label the head lacks and the head's label the data lacks, so the mismatch shows in one line."""
    from explorer.core.errors import ModelSourceError
    from explorer.core.training.setup import fit_head

    names = _named_head(every_head)
    renamed = f"{names[-1]}_OTHER"
    model = save_tiny_head_model(tmp_path / "ck", every_head, names=[*names[:-1], renamed])
    task, config = _task_and_config(every_head, write_head_data(tmp_path / "d.txt", every_head, names), model)
    train, dev = _read(task, config)
    with pytest.raises(ModelSourceError) as err:
        fit_head(str(model), task, train, dev, config, _Log())
    assert (f"{names[-1]!r} is not in the head, and the head's {renamed!r} is not in the data. Use --new-head"
            in str(err.value)), str(err.value)


def _train(argv: list) -> tuple[int, list[dict]]:
    from explorer.core.protocol.events import iter_events
    from explorer.worker.train import main as train_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


def test_fine_tuning_keeps_each_head_row_under_its_own_name(every_head, tmp_path):
    """End to end (the case of a public NER checkpoint's tag order): one step at a learning rate of 1e-12 from
    a checkpoint whose labels are in another order than the data's; the saved head row named X holds the
    checkpoint's row named X."""
    from safetensors.torch import load_file

    names = _named_head(every_head)
    order = list(reversed(names))
    model = save_tiny_head_model(tmp_path / "ck", every_head, names=order)
    data = write_head_data(tmp_path / "data.txt", every_head, names)
    rc, ev = _train(["--task", task_for_checkpoint(every_head), "--model", model, "--train", data, "--dev", data,
                     "--max-steps", 1, "--batch-size", 2, "--learning-rate", 1e-12, "--warmup-ratio", 0,
                     "--dropout", 0, "--max-seq-length", 32, "--mixed-precision", "no", "--output-dir", tmp_path,
                     "--run-id", "r"])
    assert rc == 0, ev[-1]
    saved_dir = tmp_path / "r" / "checkpoints" / "last"
    saved = json.loads((saved_dir / "config.json").read_text())["id2label"]
    saved_names = [saved[str(i)] for i in range(len(saved))]
    before = load_file(str(model / "model.safetensors"))
    after = load_file(str(saved_dir / "model.safetensors"))
    key = next(k for k in before if k.endswith("classifier.weight"))
    for name in names:
        assert (after[key][saved_names.index(name)] - before[key][order.index(name)]).abs().max() < 1e-6, name


# ---- eval mode and identical outputs -----------------------------------------------------------------------
def _rows(head) -> list[dict]:
    columns = head.prediction.text_columns or ("sentence",)
    texts = {"question": "where was ada born?", "context": "ada was born in london.", "sent1": "ada was born",
             "sent2": "in"}
    return [{c: texts.get(c, f"the city {i} {c}") for c in columns} for i in range(3)]


def test_predict_runs_a_model_left_in_train_mode_in_eval_mode(every_head, every_head_checkpoint, tmp_path):
    """A model handed over in train mode with dropout 0.5 predicts the same values twice and is handed back
    in train mode."""
    from explorer.core.predict.engine import predict_file
    from explorer.core.training.setup import set_dropout

    loaded = tiny_head_model(every_head)
    set_dropout(loaded.model, 0.5)
    loaded.model.train()
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(every_head)), encoding="utf-8")
    outs = []
    for k in range(2):
        predict_file(str(every_head_checkpoint), str(data), str(tmp_path / f"out{k}.jsonl"), loaded=loaded)
        outs.append((tmp_path / f"out{k}.jsonl").read_text(encoding="utf-8"))
    assert outs[0] == outs[1] and loaded.model.training


# ---- long texts: windows, and no false warning -----------------------------------------------------------
def test_a_text_longer_than_the_window_prints_no_indexing_warning(every_head, tmp_path, capfd):
    """transformers' "Token indices sequence length is longer than the specified maximum ... indexing errors"
    is false where the product windows or truncates on purpose: predict of a 700-word text (and a 700-word
    question, cut to max_query_length) at max_seq_length 64 with a tokenizer whose model_max_length is 512
    prints none, on every head."""
    from explorer.core.predict.engine import predict_file

    model = save_tiny_head_model(tmp_path / "ck", every_head)
    tokenizer_config = json.loads((model / "tokenizer_config.json").read_text(encoding="utf-8"))
    (model / "tokenizer_config.json").write_text(json.dumps({**tokenizer_config, "model_max_length": 512}),
                                                 encoding="utf-8")

    long_text = " ".join(["ada", "was", "born", "in", "london"] * 140)
    rows = [{c: (long_text if c in ("sentence", "context", "sent1") else v) for c, v in r.items()}
            for r in _rows(every_head)[:1]]
    for row in rows:   # a question longer than the tokenizer's maximum is cut to max_query_length on purpose too
        row.update({"question": f"{long_text} ?"} if "question" in row else {})
    data = tmp_path / "long.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary = predict_file(str(model), str(data), str(tmp_path / "out.jsonl"), max_seq_length=64,
                           doc_stride=16, max_query_length=16)
    assert summary.errors == 0
    captured = capfd.readouterr()
    assert "indexing errors" not in captured.err + captured.out
    if every_head.inputs is Inputs.WORDS:      # every word is tagged, the last ones included
        written = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
        assert len(written["tags"].split()) == 700


# ---- best-checkpoint direction ----------------------------------------------------------------------------
def test_every_metric_of_every_head_has_a_direction_the_best_rule_follows(every_head):
    """Each metric a head reports declares which way is better (or that it never picks a best); the best
    evaluation follows it, and a non-finite value is never the best."""
    from explorer.core.specs.best import best_evaluation
    from explorer.core.specs.metrics import metric_spec

    for name in every_head.metrics:
        spec = metric_spec(name)
        assert spec.higher_is_better is not None or not spec.can_pick_best, name
        if not spec.can_pick_best:
            continue
        points = [(1, 0.5), (2, 0.7), (3, math.nan), (4, 0.6)]
        expected = (2, 0.7) if spec.higher_is_better else (1, 0.5)
        assert best_evaluation(points, metric=name) == expected, name


# ---- undefined correlations --------------------------------------------------------------------------------
def test_correlations_of_constant_predictions_are_undefined_with_the_reason(every_head):
    """Pearson / Spearman of constant predictions (a collapsed regression run) or constant gold are NaN, saved
    as null, said with the reason, and never the best evaluation; 0.0 read as "merely uncorrelated"."""
    from explorer.core.metrics.regression import CORRELATIONS, regression_metrics, undefined_note
    from explorer.core.protocol.events import encode_event, make_event
    from explorer.core.specs.best import best_of_events

    reported = [m for m in CORRELATIONS if m in every_head.metrics]
    if not reported:
        pytest.skip(f"the {every_head.name} head reports no correlation")
    flat = regression_metrics([2.5, 2.5, 2.5, 2.5], [0.0, 1.0, 4.0, 5.0])
    assert all(math.isnan(flat[m]) for m in reported) and flat["mse"] == pytest.approx(4.25)
    assert flat["undefined"]["pearson"] == "the predictions are constant (2.5 for all 4 rows)"
    assert undefined_note(flat) == "pearson and spearman undefined: the predictions are constant (2.5 for all 4 rows)"
    gold = regression_metrics([0.1, 2.0, 3.0, 4.0], [3.0, 3.0, 3.0, 3.0])
    assert gold["undefined"]["spearman"] == "the gold scores are constant (3 for all 4 rows)"
    assert "undefined" not in regression_metrics([1.0, 2.0, 3.0], [1.0, 2.5, 2.0])
    line = encode_event(make_event("eval", "r", step=2, metrics=flat))
    assert "NaN" not in line and json.loads(line)["metrics"]["pearson"] is None
    events = [{"event": "eval", "step": 1, "metrics": {"pearson": 0.1}}, json.loads(line)]
    assert best_of_events(events, reported[0]) == (1, 0.1)


def test_a_run_whose_correlation_was_undefined_throughout_says_so_wherever_its_best_is_shown(tmp_path):
    """A regression run that collapsed after step 0 (constant predictions at every later evaluation) has no best
    Pearson: `bert-explorer runs`, the Runs list's Best dev cell and tooltip, a group's notes and the capsule's
    figures, the bag-of-words comparison and Classify: dev set say "undefined" with the reason, never a number
    (0.000) nor a blank as if it had never been evaluated."""
    from explorer.commands.runs import row_line, run_row
    from explorer.core.classify.dev_report import regression_dev_report
    from explorer.core.metrics.intervals import correlation_interval
    from explorer.core.metrics.regression import regression_metrics
    from explorer.core.protocol.events import encode_event, make_event
    from explorer.core.runs.reading import load_run
    from explorer.core.specs.heads import REGRESSION
    from explorer.core.studies.baseline import versus_model
    from explorer.core.studies.capsule import Figures, printed
    from explorer.core.studies.group_stats import group_table
    from explorer.core.studies.groups import load_group_data
    from explorer.ui.curves.curves_model import CurvesModel
    from explorer.ui.inspectors.components.classify_dev import regression_metrics as dev_line
    from explorer.ui.runs.state import DEV_PREFIX, RunState, undefined_best_text

    run = tmp_path / "r"
    run.mkdir()
    config = {"task": "regression", "model": "m", "metric_for_best": "pearson"}
    (run / "config.json").write_text(json.dumps(config), encoding="utf-8")
    good = regression_metrics([0.0, 1.0, 3.0], [0.0, 1.0, 2.0])
    flat = [regression_metrics([2.5] * 4, [0.0, 1.0, 4.0, 5.0 + k]) for k in range(2)]
    events = [make_event("started", "r", config=config, steps_total=4), make_event("eval", "r", step=0, metrics=good),
              make_event("eval", "r", step=2, metrics=flat[0]), make_event("eval", "r", step=4, metrics=flat[1]),
              make_event("finished", "r", metrics=flat[1], steps=4)]
    (run / "events.jsonl").write_text("".join(encode_event(e) + "\n" for e in events), encoding="utf-8")
    reason = "the predictions are constant (2.5 for all 4 rows)"
    record = load_run(run)
    assert record.summary.metric_value is None and record.summary.metric_undefined == reason
    row = run_row(record)
    assert row["best"] == {"name": "pearson", "value": None, "undefined": reason}
    assert f"pearson=undefined ({reason})" in row_line(row)
    state = RunState.from_events("r", [json.loads(encode_event(e)) for e in events])
    assert state.best_metric() is None
    dev = state.series[DEV_PREFIX + "pearson"]     # Curves: the undefined evaluations are gaps, their steps marked
    assert dev.x.tolist() == [0.0, 2.0, 4.0] and dev.nonfinite == 2 and math.isfinite(dev.y[0])
    assert undefined_best_text(state, short=True) == "undefined pearson"
    assert undefined_best_text(state) == f"pearson undefined: {reason}"
    group = tmp_path / ".groups" / "g"
    group.mkdir(parents=True)
    (group / "group.json").write_text(json.dumps({"name": "g", "kind": "restarts", "varied": ["seed"], "seeds": [1],
                                                  "members": [{"run_id": "r", "seed": 1, "params": {"seed": 1}}],
                                                  "base": config}), encoding="utf-8")
    _, members, notes = load_group_data(tmp_path, "g")
    assert math.isnan(members[0].final) and math.isnan(members[0].best)   # never step 0's defined value
    assert notes == [f"r: pearson undefined at every evaluation after step 0: {reason}; left out of the best and "
                     "final figures"]
    table = group_table(members, ["seed"])
    assert table.figure_text("final") == table.figure_text("best") == f"undefined ({reason})"
    shown = Figures.of(json.loads(encode_event(events[3])), "regression").shown
    assert shown["pearson"] == f"undefined ({reason})" and shown["mse"] != "undefined"
    assert printed(None, "pearson", "regression") == "undefined"    # a saved baseline's null r in the capsule
    defined = RunState.from_events("r", [json.loads(encode_event(e)) for e in events[:2]]
                                   + [json.loads(encode_event(make_event("eval", "r", step=2, metrics=good)))])
    assert undefined_best_text(defined) == ""     # a defined best is shown as a number, with no undefined note

    curves = CurvesModel()
    curves.set_runs([state, defined])
    assert curves.legend_entries()[0][0] == f"■ r (finished · best pearson undefined: {reason})"
    assert curves.run_notes() == [f"r: at step 4 pearson and spearman undefined: {reason}"]

    flat_r = correlation_interval([0.0, 1.0, 4.0, 5.0], [2.5] * 4, resamples=50)   # beside the bag-of-words baseline
    assert math.isnan(flat_r.value) and flat_r.undefined == reason and flat_r.to_dict()["value"] is None
    verdict = versus_model([0.0, 1.0, 4.0, 5.0], [0.5, 1.0, 3.0, 4.5], [2.5] * 4, REGRESSION, resamples=50)
    assert f"fine-tuned undefined ({reason})" in verdict.lines[1] and verdict.figures["model"]["pearson"] is None
    json.dumps(verdict.figures, allow_nan=False)                                    # strict JSON in the run folder

    report = regression_dev_report([2.5] * 4, [0.0, 1.0, 4.0, 5.0], ["a", "b", "c", "d"])   # Classify: dev set
    assert dev_line(report, "regression").endswith(f"\npearson and spearman undefined: {reason}")
    assert "pearson undefined" in dev_line(report, "regression") and "0.000" not in dev_line(report, "regression")


# ---- predict's formats -------------------------------------------------------------------------------------
def _write_table(path: Path, rows: list[dict]) -> Path:
    columns = list(rows[0])
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".xlsx":
        import openpyxl

        book = openpyxl.Workbook()
        sheet = book.active
        sheet.append(columns)
        for r in rows:
            sheet.append([r[c] for c in columns])
        book.save(path)
    elif path.suffix == ".txt" and not path.name.endswith(".tab.txt"):   # one text per line, no header
        path.write_text("".join(r["text"] + "\n" for r in rows), encoding="utf-8")
    else:
        sep = "," if path.suffix == ".csv" else "\t"   # .tsv and a .txt with tabs: tab-separated, a header
        path.write_text(sep.join(columns) + "\n" + "".join(sep.join(r[c] for c in columns) + "\n" for r in rows),
                        encoding="utf-8")
    return path


def test_an_undefined_correlation_stays_undefined_in_csv_and_tensorboard_exports_and_read_back(tmp_path):
    """`runs --export-csv` (long and wide) and `export-tensorboard` keep an evaluation whose correlation is
    undefined as a point without a value (an empty CSV cell, NaN in the event file, read back as undefined with
    a reason), so a run that collapsed after step 0 does not read as evaluated once with pearson 0.114; the MSE
    beside it stays."""
    import csv

    from explorer.core.metrics.regression import regression_metrics
    from explorer.core.protocol.events import encode_event, make_event
    from explorer.core.runs.export import export_runs_csv
    from explorer.core.runs.tensorboard import export_tensorboard, tensorboard_events

    run = tmp_path / "r"
    run.mkdir()
    config = {"task": "regression", "model": "m", "metric_for_best": "pearson"}
    (run / "config.json").write_text(json.dumps(config), encoding="utf-8")
    flat = regression_metrics([2.5] * 4, [0.0, 1.0, 4.0, 5.0])
    events = [make_event("started", "r", config=config, steps_total=2),
              make_event("eval", "r", step=0, metrics=regression_metrics([0.0, 1.0, 3.0], [0.0, 1.0, 2.0])),
              make_event("eval", "r", step=2, metrics=flat)]
    (run / "events.jsonl").write_text("".join(encode_event(e) + "\n" for e in events), encoding="utf-8")

    export_runs_csv([run], tmp_path / "long.csv")
    rows = {(r["step"], r["name"]): r["value"] for r in csv.DictReader(open(tmp_path / "long.csv", encoding="utf-8"))}
    assert rows[("2", "eval/pearson")] == rows[("2", "eval/spearman")] == ""
    assert float(rows[("2", "eval/mse")]) == pytest.approx(4.25) and float(rows[("0", "eval/pearson")]) > 0
    assert "nan" not in (tmp_path / "long.csv").read_text(encoding="utf-8").lower()
    export_runs_csv([run], tmp_path / "wide.csv", wide=True)
    wide = list(csv.DictReader(open(tmp_path / "wide.csv", encoding="utf-8")))
    assert [(r["step"], r["eval/pearson"]) for r in wide][-1] == ("2", "")

    back = tensorboard_events("r", export_tensorboard(run, [json.loads(encode_event(e)) for e in events],
                                                      tmp_path / "tb"))
    evals = [e for e in back if e["event"] == "eval"]
    assert [e["step"] for e in evals] == [0, 2] and evals[1]["metrics"]["pearson"] is None
    assert evals[1]["metrics"]["mse"] == pytest.approx(4.25)
    assert evals[1]["metrics"]["undefined"]["pearson"] == "eval/pearson is NaN in the event file"   # said, not blank
    assert "undefined" not in evals[0]["metrics"]


def test_predict_reads_every_format_the_same_way_on_every_head(every_head, every_head_checkpoint, tmp_path):
    """The same rows as CSV, TSV, a tab-separated .txt, JSONL, xlsx and (a head reading one text) a .txt of one
    text per line give the same predictions: one table rule for every head."""
    from explorer.core.predict.engine import predict_file

    rows = _rows(every_head)
    one_text = list(rows[0]) == ["sentence"]
    if one_text:
        rows = [{"id": str(i), "text": r["sentence"]} for i, r in enumerate(rows)]   # a .txt with tabs has 2 columns
    suffixes = ["csv", "tsv", "tab.txt", "jsonl", "xlsx"] + (["txt"] if one_text else [])
    predicted = {}
    for suffix in suffixes:
        data = _write_table(tmp_path / f"data.{suffix}", rows)
        out = tmp_path / f"out-{suffix}.jsonl"
        summary = predict_file(str(every_head_checkpoint), str(data), str(out))
        assert summary.rows == 3 and summary.errors == 0, (suffix, summary.notes)
        written = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
        predicted[suffix] = [{k: v for k, v in r.items() if k in every_head.prediction.output_columns(
            list(head_label_names(every_head).values()))} for r in written]
    first = predicted[suffixes[0]]
    assert all(p == first for p in predicted.values()), {k: v[0] for k, v in predicted.items()}


def test_explain_reads_a_row_of_a_table_as_predict_does_on_every_head(every_head, every_head_checkpoint, tmp_path):
    """``explain --data FILE --row N`` explains the same input as typing that row's texts: the text columns
    predict would read (QA: question and context; multiple choice: the context, the start and the endings)."""
    from explorer.cli import main

    rows = _rows(every_head)
    data = _write_table(tmp_path / "rows.csv", rows)
    common = ["explain", "--model", str(every_head_checkpoint), "--method", "gxi"]
    assert main([*common, "--data", str(data), "--row", "2", "--out", str(tmp_path / "a.json")]) == 0
    row = rows[1]
    typed = ["--text", next(iter(row.values()))]
    columns = list(every_head.prediction.text_columns or ("sentence",))
    if len(columns) > 1:
        typed += ["--text-pair", row[columns[1]]]
    for column in columns[2:]:
        typed += ["--ending", row[column]]
    assert main([*common, *typed, "--out", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f"{k}.json").read_text(encoding="utf-8")) for k in "ab")
    assert a["tokens"] == b["tokens"] and a["attributions"] == b["attributions"]
