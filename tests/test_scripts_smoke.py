"""scripts/demo_end_to_end.py and scripts/screenshots.py: the parts that run without a training run.

The scripts themselves drive the real app for minutes (they are run by hand, see README); here:
picking the watch examples from a dev file, the evaluation interval, the report written from a
run's events (numbers checked against the events), and the screenshot size limit.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import write_tiny_squad

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import demo_end_to_end as demo  # noqa: E402
import screenshots  # noqa: E402


def test_pick_watch_takes_first_answerable_and_first_unanswerable(tmp_path):
    path = write_tiny_squad(tmp_path / "dev.json", v2=True)
    watch, gold = demo.pick_watch(str(path), cap=0)
    assert [w["question"] for w in watch] == ["Where was Ada born?", "Where was Babbage born?"]
    assert watch[0]["gold"] == ["London"] and watch[1]["gold"] == []
    assert watch[0]["passage"].startswith("Ada was born in London")
    assert len(gold) == 14
    # within the first 3 questions there is no unanswerable one: only one watch example
    watch3, gold3 = demo.pick_watch(str(path), cap=3)
    assert [w["id"] for w in watch3] == ["q0001"] and len(gold3) == 3


def test_auto_eval_every():
    # 20 min x 60 s x 3 samples/s / batch 32 = 112.5 steps; / 6 evaluations = 18
    assert demo.auto_eval_every(20, 32) == 18
    assert demo.auto_eval_every(2, 8) == 7      # 2 x 60 x 3 / 8 / 6 = 7.5
    assert demo.auto_eval_every(0.1, 32) == 5   # never below 5


def _events() -> list[dict]:
    flow0 = {k: [0.1 * (i + 1) for i in range(2)] for k in
             ("question->passage", "passage->question", "question->special", "passage->special")}
    flow1 = {k: [0.5, 0.25] for k in flow0}
    watch0 = [{"question": "Where was Ada born?", "answer": "", "best_span": "Ada", "score_diff": -1.5,
               "flow": flow0}]
    watch1 = [{"question": "Where was Ada born?", "answer": "London", "best_span": "London", "score_diff": 2.25,
               "flow": flow1}]
    cfg = {"model": "bundled:minilm", "task": "squad_v2", "train": "t.json", "dev": "d.json", "dev_cap": 40,
           "batch_size": 8, "learning_rate": 1e-4, "warmup_ratio": 0.1, "max_seq_length": 256, "doc_stride": 128,
           "eval_every": 2, "mixed_precision": "auto"}
    steps = [{"event": "step", "step": s, "epoch": s / 10, "loss": 5.0 - s, "samples_per_second": float(s)}
             for s in range(1, 5)]
    return ([{"event": "started", "config": cfg, "device": "cpu", "mixed_precision": "no", "steps_total": 10,
              "num_train_examples": 100, "num_train_features": 110, "num_dev_examples": 40},
             {"event": "eval", "step": 0, "seconds": 4.0, "watch": watch0,
              "metrics": {"exact_match": 1.0, "f1": 2.5, "HasAns_f1": 5.0, "NoAns_f1": 0.0}}]
            + steps
            + [{"event": "eval", "step": 4, "seconds": 8.0, "watch": watch1,
                "metrics": {"exact_match": 30.0, "f1": 33.25, "HasAns_f1": 20.0, "NoAns_f1": 46.5}},
               {"event": "finished", "stopped_early": True, "metrics": {}}])


def test_report_figures_come_from_the_events(tmp_path):
    honest = {"n_A": 20, "tau_A": 0.5, "f1_B_at_tau_A": 40.0, "tau_B": 0.75, "f1_A_at_tau_B": 42.0,
              "honest_f1": 41.0, "dev_best_f1": 45.0}
    tau = {"n": 40, "path": "/x/d.json", "seconds": 3.0, "best_tau": 0.5, "best_f1": 45.0, "settings": {},
           "inference_s": 2.0, "honest": honest,
           "official": {"exact_match": 30.0, "f1": 33.25, "best_f1": 45.5, "best_tau": 0.6}}
    info = {"run_id": "r1", "run_dir": "/x/runs/r1", "command": "python scripts/demo_end_to_end.py",
            "setup_s": 12.0, "train_s": 120.0, "stop_s": 9.0, "total_s": 200.0,
            "watch": [{"gold": ["London"]}], "checkpoint": {"path": "/x/best", "step": 4, "metrics": {"f1": 33.25}}}
    path = demo.write_report(tmp_path, SimpleNamespace(minutes=2), info, _events(),
                             [("curves_final.png", "the end")], [], tau)
    text = path.read_text(encoding="utf-8")
    assert "**Before fine-tuning (step 0)**: EM 1.00, F1 2.50. **After (step 4)**: EM 30.00, F1 33.25." in text
    assert "finished (stopped early); 4 steps, epoch 0.40" in text
    assert "median 2.50, max 4.00" in text                     # samples/s of steps 1..4
    assert "32 training windows seen" in text                  # 4 steps x batch 8
    assert "dev evaluation: 7.5 questions/s" in text           # 40 questions / (4 s, 8 s): median of 10, 5
    assert "honest F1 41.00** vs 45.00" in text
    assert "best τ on the grid (−6..+6, step 0.25): **+0.50**, F1 45.00" in text
    assert "\"auto\" chose fp32" in text
    # block flow table: layer 2 before 0.200, after 0.250 in every column
    row = next(line for line in text.splitlines() if line.startswith("| 2 |"))
    assert row == "| 2 | " + " | ".join(["0.200"] * 4 + ["0.250"] * 4) + " |"
    assert "Before: answer '(no answer)', best span 'Ada', score_diff -1.50" in text
    assert "After: answer 'London'" in text


def test_grab_scales_down_to_the_size_limit(qtbot, tmp_path):
    import numpy as np
    from PySide6.QtGui import QImage, QPixmap
    from PySide6.QtWidgets import QApplication, QLabel

    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 255, size=(400, 600, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    image = QImage(pixels.data, 600, 400, 600 * 4, QImage.Format.Format_RGBA8888).copy()
    label = QLabel()
    label.setPixmap(QPixmap.fromImage(image))
    label.resize(600, 400)
    qtbot.addWidget(label)
    fake = SimpleNamespace(app=QApplication.instance(), win=label)
    w, h, size = screenshots.AppDriver.grab(fake, tmp_path / "a.png", max_kb=300)
    assert size <= 300 * 1024 and w < 600
    assert (tmp_path / "a.png").stat().st_size == size
    w2, _h2, size2 = screenshots.AppDriver.grab(fake, tmp_path / "b.png", max_kb=5000)
    assert w2 == 600 and size2 > 300 * 1024                    # under the limit: kept full size


@pytest.mark.parametrize("module", [demo, screenshots])
def test_scripts_show_help(module, capsys):
    with pytest.raises(SystemExit) as exc:
        module.main(["--help"])
    assert exc.value.code == 0
    assert "usage" in capsys.readouterr().out
