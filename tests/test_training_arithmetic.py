"""Training arithmetic: a leftover gradient-accumulation group is averaged over the
micro-batches it holds; fp32 master weights whatever dtype the checkpoint was saved in; a warning when
bf16 is asked for on a CPU that only emulates it; the model load report in the started event."""

import contextlib
import io

import pytest
from helpers import save_tiny_model, write_tiny_classification, write_tiny_squad

from explorer.core.protocol.events import iter_events
from explorer.core.training.loop import group_scale
from explorer.worker.train import EXIT_OK, main as train_main


def run(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("arith")
    return {"cls": str(save_tiny_model(d / "cls", "classification")),
            "sst": str(write_tiny_classification(d / "sst.tsv", repeat=1)),   # 8 rows
            "qa": str(save_tiny_model(d / "qa", "qa")),
            "sq2": str(write_tiny_squad(d / "sq2.json", v2=True)), "dir": d}


def test_group_scale_turns_the_division_by_ga_into_a_mean_over_the_group():
    # 8 micro-batches, GA 3: groups of 3, 3 and a leftover of 2
    assert [group_scale(i, 8, 3) for i in range(8)] == [1, 1, 1, 1, 1, 1, 1.5, 1.5]
    assert [group_scale(i, 6, 5) for i in range(6)] == [1, 1, 1, 1, 1, 5]
    assert [group_scale(i, 4, 1) for i in range(4)] == [1, 1, 1, 1]
    assert group_scale(0, 2, 4) == 2      # fewer micro-batches than GA: one group of 2


def _grad_norms(files, tmp_path, ga):
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--epochs", 1,
                  "--batch-size", 1, "--gradient-accumulation-steps", ga, "--no-length-grouping", "--dropout", 0,
                  "--learning-rate", 1e-12, "--warmup-ratio", 0, "--max-grad-norm", 0, "--mixed-precision", "no",
                  "--no-save-checkpoints", "--seed", 7, "--dev-fraction", 0, "--output-dir", tmp_path,
                  "--run-id", f"ga{ga}"])   # no dev file and no held-out split: all 8 rows train
    assert rc == EXIT_OK, ev[-1]
    return [e["grad_norm"] for e in ev if e["event"] == "step"]


def test_leftover_group_is_averaged_over_its_micro_batches(files, tmp_path):
    """Case ga-leftover-group: 8 rows, batch 1; GA 7 gives a last step holding only the 8th row, so its
    gradient norm must equal GA 1's last (same row, weights that do not move at lr 1e-12)."""
    ga1, ga7 = _grad_norms(files, tmp_path, 1), _grad_norms(files, tmp_path, 7)
    assert len(ga1) == 8 and len(ga7) == 2
    assert ga7[-1] == pytest.approx(ga1[-1], rel=1e-4)
    assert ga7[-1] > 2 * ga1[-1] / 7        # before the fix it was ga1[-1] / 7


def test_fp16_checkpoint_trains_with_fp32_master_weights_under_bf16(files, tmp_path):
    """Case fp16-checkpoint: weights saved as float16 are upcast for training; bf16 autocast works."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForQuestionAnswering

    fp16 = tmp_path / "tiny_fp16"
    model = AutoModelForQuestionAnswering.from_pretrained(files["qa"])
    model.half().save_pretrained(fp16)
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(files["qa"]).save_pretrained(fp16)
    rc, ev = run(["--model", fp16, "--task", "squad_v2", "--train", files["sq2"], "--max-steps", 2,
                  "--batch-size", 4, "--mixed-precision", "bf16", "--max-seq-length", 64, "--doc-stride", 16,
                  "--max-query-length", 16, "--output-dir", tmp_path, "--run-id", "fp16"])
    assert rc == EXIT_OK, ev[-1]
    logs = [e["message"] for e in ev if e["event"] == "log"]
    assert any("weights stored as float16" in m and "float32 master weights" in m for m in logs)
    weights = load_file(str(tmp_path / "fp16" / "checkpoints" / "last" / "model.safetensors"))
    assert {t.dtype for t in weights.values()} == {torch.float32}


def test_bf16_on_a_cpu_without_native_bf16_warns(files, tmp_path, monkeypatch):
    from explorer.core.training import precision

    monkeypatch.setattr(precision, "cpu_has_native_bf16", lambda: False)
    message = precision.bf16_warning("bf16", "cpu")
    assert "4-5x slower than fp32" in message and "AMX" in message
    assert precision.bf16_warning("no", "cpu") is None and precision.bf16_warning("auto", "cpu") is None
    assert precision.bf16_warning("bf16", "cuda") is None
    rc, ev = run(["--model", files["cls"], "--task", "single", "--train", files["sst"], "--max-steps", 1,
                  "--dev-fraction", 0, "--mixed-precision", "bf16", "--no-save-checkpoints", "--output-dir", tmp_path, "--run-id", "bf"])
    assert rc == EXIT_OK, ev[-1]
    warnings = [e for e in ev if e["event"] == "log" and e["level"] == "warning"]
    assert [w["message"] for w in warnings] == [message]
    monkeypatch.setattr(precision, "cpu_has_native_bf16", lambda: True)
    assert precision.bf16_warning("bf16", "cpu") is None


def test_started_event_carries_the_load_report(files, tmp_path):
    """Case checkpoint-missing-encoder: encoder weights under another prefix load as random; the started
    event says so and a warning log names them."""
    from safetensors.torch import load_file, save_file

    wrong = tmp_path / "wrong_base"
    save_tiny_model(wrong, "qa")
    weights = load_file(str(wrong / "model.safetensors"))
    save_file({k.replace("bert.", "encoder_x.", 1): v for k, v in weights.items()}, str(wrong / "model.safetensors"),
              metadata={"format": "pt"})
    rc, ev = run(["--model", wrong, "--task", "squad_v2", "--train", files["sq2"], "--max-steps", 1,
                  "--max-seq-length", 64, "--doc-stride", 16, "--max-query-length", 16, "--no-save-checkpoints",
                  "--output-dir", tmp_path, "--run-id", "wrong"])
    assert rc == EXIT_OK, ev[-1]
    started = next(e for e in ev if e["event"] == "started")
    report = started["load_report"]
    assert report and "warning" in report and "bert.embeddings" in report["warning"]
    warnings = [e["message"] for e in ev if e["event"] == "log" and e["level"] == "warning"]
    assert report["warning"] in warnings
    # a sound checkpoint: a report without a warning
    rc, ev = run(["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--max-steps", 1,
                  "--max-seq-length", 64, "--doc-stride", 16, "--max-query-length", 16, "--no-save-checkpoints",
                  "--output-dir", tmp_path, "--run-id", "sound"])
    started = next(e for e in ev if e["event"] == "started")
    assert rc == EXIT_OK and isinstance(started["load_report"], dict) and "warning" not in started["load_report"]


def _steps(files, tmp_path, batch, ga):
    rc, ev = run(["--model", files["qa"], "--task", "squad_v2", "--train", files["sq2"], "--max-steps", 3,
                  "--batch-size", batch, "--gradient-accumulation-steps", ga, "--dropout", 0, "--learning-rate", 1e-3,
                  "--max-seq-length", 48, "--doc-stride", 8, "--max-query-length", 16, "--mixed-precision", "no",
                  "--no-save-checkpoints", "--seed", 1, "--output-dir", tmp_path, "--run-id", f"b{batch}ga{ga}"])
    assert rc == EXIT_OK, ev[-1]
    return [(e["loss"], e["grad_norm"]) for e in ev if e["event"] == "step"]


@pytest.mark.slow
def test_length_grouping_works_on_the_effective_batch(files, tmp_path):
    """Case ga-length-grouping: with length grouping on (the default), batch 3 x GA 2 and batch 6 x GA 1 see the
    same windows in every optimizer step, so with dropout 0 their per-step loss and grad norm agree."""
    a, b = _steps(files, tmp_path, 3, 2), _steps(files, tmp_path, 6, 1)
    assert len(a) == len(b) == 3
    for (loss_a, norm_a), (loss_b, norm_b) in zip(a, b):
        assert loss_a == pytest.approx(loss_b, rel=1e-3)
        assert norm_a == pytest.approx(norm_b, rel=1e-3)
