"""predict applies the temperature saved with the checkpoint's run (calibration.json) unless --no-calibration."""

from __future__ import annotations

import csv
import dataclasses

import numpy as np
import pytest
from helpers import save_tiny_model

from explorer.core.metrics import calibration as C


def _probs(path, names):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return np.array([[float(r[f"p_{n}"]) for n in names] for r in rows]), [r["predicted_label"] for r in rows]


def test_predict_scales_by_the_runs_temperature(tmp_path):
    from explorer.cli import main
    from explorer.core.predict.engine import predict_file

    ckpt = save_tiny_model(tmp_path / "r-01" / "checkpoints" / "best", "classification", num_labels=3)
    data = tmp_path / "in.csv"
    data.write_text("id,text\nr0,good city\nr1,bad river model\nr2,the first name\n", encoding="utf-8")
    raw = predict_file(str(ckpt), str(data), str(tmp_path / "raw.csv"))
    assert not any("temperature" in n for n in raw.notes)
    rng = np.random.default_rng(0)
    cal = C.honest_temperature(rng.normal(size=(8, 3)), rng.integers(0, 3, 8))
    C.save_calibration(tmp_path / "r-01", dataclasses.replace(cal, temperature=2.0))
    scaled = predict_file(str(ckpt), str(data), str(tmp_path / "scaled.csv"))
    assert any("T = 2.000" in n for n in scaled.notes)
    names = ["LABEL_0", "LABEL_1", "LABEL_2"]
    p_raw, lab_raw = _probs(tmp_path / "raw.csv", names)
    p_cal, lab_cal = _probs(tmp_path / "scaled.csv", names)
    np.testing.assert_allclose(p_cal, C.softmax(np.log(p_raw), 2.0), atol=1e-9)   # log p = z + const per row
    assert lab_cal == lab_raw
    assert main(["predict", "--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "off.csv"),
                 "--no-calibration"]) == 0
    np.testing.assert_allclose(_probs(tmp_path / "off.csv", names)[0], p_raw, atol=1e-12)
    assert main(["predict", "--model", str(ckpt), "--data", str(data), "--out", str(tmp_path / "on.csv")]) == 0
    np.testing.assert_allclose(_probs(tmp_path / "on.csv", names)[0], p_cal, atol=1e-12)


@pytest.mark.parametrize("text", ["{", '{"temperature": 0}'])
def test_a_broken_calibration_file_is_named_not_applied(tmp_path, text):
    from explorer.core.predict.engine import predict_file

    ckpt = save_tiny_model(tmp_path / "r" / "checkpoints" / "best", "classification", num_labels=2)
    (tmp_path / "r" / C.CALIBRATION_FILE).write_text(text, encoding="utf-8")
    data = tmp_path / "in.csv"
    data.write_text("text\ngood\n", encoding="utf-8")
    s = predict_file(str(ckpt), str(data), str(tmp_path / "o.csv"))
    assert any(n.startswith("calibration ignored:") and "calibration.json" in n for n in s.notes)
