"""The Layer probes page (explorer/ui/inspectors/layer_probes_view.py) through the in-thread inspector double: the
form's request, its refusals, the two curves with bands, the table and the summary equal to the CLI's JSON; and
the page's Qt-free texts (components/layer_probes.py)."""

import json

import pytest
from helpers import save_tiny_model, write_tiny_classification

from explorer.core.probing.linear import LayerCurve
from explorer.core.probing.study import ProbeStudy
from explorer.ui.inspectors.components.layer_probes import (FormError, curve_series, request_from, summary_line,
                                                            table_rows)
from explorer.ui.inspectors.layer_probes_view import LayerProbesView


def study_of(curves, notes=()):
    return ProbeStudy(kind="tokens", what="entity tag", data="x.txt", label_names=["O", "B-PER"], n_rows=10,
                      n_sentences=4, seeds=[0, 1], test_fraction=0.3, majority=0.5, curves=curves,
                      notes=list(notes))


def curve(name, mean, low=None, high=None):
    nan = float("nan")
    return LayerCurve(name=name, source="", layers=list(range(len(mean))), mean=mean,
                      low=low or [nan] * len(mean), high=high or [nan] * len(mean), per_seed=[mean])


def test_texts_of_the_page():
    s = study_of([curve("base model", [0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.6, 0.7, 0.8]),
                  curve("fine-tuned", [0.5, 0.8, 0.9])], notes=["3 words past max_seq_length 128 left out"])
    series = curve_series(s)
    assert series[0].mean == pytest.approx([50, 60, 70]) and series[0].low == pytest.approx([40, 50, 60])
    assert series[1].low is None                       # one seed's worth: no band
    headers, rows = table_rows(s)
    assert headers == ["layer", "base model", "fine-tuned", "change"]
    assert rows[0] == ["emb", "50.0 ± 10.0", "50.0", "+0.0"] and rows[2][-1] == "+20.0"
    line = summary_line(s)
    assert "majority class 50.0 %" in line and "fine-tuned 2 (90.0 %)" in line and "left out" in line
    with pytest.raises(FormError, match="checkpoint"):
        request_from({"model": " "})
    with pytest.raises(FormError, match="tagging file"):
        request_from({"model": "m", "labels": "tokens"})
    assert request_from({"model": "m", "labels": "sentences", "seeds": 2})["seeds"] == 2


def test_the_page_draws_what_the_cli_writes(qtbot, tmp_path):
    base = save_tiny_model(tmp_path / "base", "classification", seed=1)
    run = tmp_path / "runs" / "r1"
    ckpt = save_tiny_model(run / "checkpoints" / "best", "classification", seed=2)
    dev = write_tiny_classification(tmp_path / "dev.tsv", repeat=4)
    (run / "config.json").write_text(json.dumps({"task": "single", "model": str(base), "dev": str(dev)}))
    view = LayerProbesView()
    view.resize(1280, 760)
    qtbot.addWidget(view)
    view.show()
    view.run_button.click()
    assert "choose the fine-tuned checkpoint" in view.status.text()
    view.model.setText(str(ckpt))
    view.seeds.setValue(2)
    with qtbot.waitSignal(view.job.finished, timeout=60_000):
        view.run_button.click()
    study = view.study
    assert [c.name for c in study.curves] == ["base model", "fine-tuned"]
    assert view.table.rowCount() == 3 and view.table.columnCount() == 4
    lines = [i for i in view.plot.getPlotItem().listDataItems() if i.name() in ("base model", "fine-tuned")]
    assert len(lines) == 2
    assert view.status.text() == summary_line(study) and view.run_button.isEnabled()
    from explorer import cli

    out = tmp_path / "probes.json"
    assert cli.main(["layer-probes", "--model", str(ckpt), "--labels", "sentences", "--seeds", "2",
                     "--out", str(out)]) == 0
    want = json.loads(out.read_text())
    assert [c["mean"] for c in want["curves"]] == [pytest.approx(c.mean) for c in study.curves]
    view.grab().save(str(tmp_path / "layer_probes.png"))
