"""--device of eval, predict and probe (explorer.core.devices): "auto" is the GPU where torch sees one, else the
CPU; a CUDA device this torch cannot use is refused with the reason, never a traceback. The GPU-marked test runs
on a machine with CUDA (scripts/gpu_check.py runs `pytest -m gpu`) and is skipped elsewhere."""

from __future__ import annotations

import pytest
import torch

from explorer.core.devices import DeviceError, place, resolve_device
from helpers import run_cli, tiny_loaded_model, write_tiny_squad

NO_CUDA = not torch.cuda.is_available()


def test_auto_is_the_gpu_where_there_is_one_else_the_cpu():
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("") == resolve_device("auto") and resolve_device(" CPU ") == "cpu"


def test_an_unknown_device_name_is_refused_with_the_choices():
    with pytest.raises(DeviceError, match="use auto, cpu, cuda or cuda:N"):
        resolve_device("gpu")


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a CUDA GPU")
def test_cuda_without_a_gpu_says_why_and_what_to_use():
    with pytest.raises(DeviceError) as exc:
        resolve_device("cuda:1")
    assert "sees no CUDA GPU here" in str(exc.value) and "--device cpu" in str(exc.value)
    assert torch.__version__ in str(exc.value)


@pytest.fixture(scope="module")
def qa_folder(tmp_path_factory):
    lm = tiny_loaded_model("qa")
    path = tmp_path_factory.mktemp("tiny_qa_device")
    lm.model.save_pretrained(path)
    lm.tokenizer.save_pretrained(path)
    return path


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a CUDA GPU")
@pytest.mark.parametrize("command", ["eval", "probe", "predict"])
def test_the_commands_refuse_a_gpu_they_cannot_use_with_exit_2(command, qa_folder, tmp_path):
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    argv = {"eval": [command, "--model", qa_folder, "--data", data, "--out", tmp_path / "out"],
            "predict": [command, "--model", qa_folder, "--data", data, "--out", tmp_path / "out.csv"],
            "probe": [command, "--model", qa_folder, "--question", "Where was Ada born?",
                      "--passage", "Ada Lovelace was born in London in 1815."]}[command]
    res = run_cli(argv + ["--device", "cuda"])
    assert res.returncode == 2, res.stderr
    assert "sees no CUDA GPU here" in res.stderr and "Traceback" not in res.stderr


def test_eval_on_the_cpu_names_the_device(qa_folder, tmp_path):
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    res = run_cli(["eval", "--model", qa_folder, "--data", data, "--out", tmp_path / "out", "--device", "cpu"])
    assert res.returncode == 0, res.stderr
    assert "; on cpu" in res.stderr


@pytest.mark.gpu
@pytest.mark.skipif(NO_CUDA, reason="needs a CUDA GPU")
def test_eval_on_the_gpu_gives_the_cpus_answers(qa_folder, tmp_path):
    """The same tiny model on the GPU and on the CPU: the same predictions file (fp32 both)."""
    import json

    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    for device in ("cpu", "cuda"):
        res = run_cli(["eval", "--model", qa_folder, "--data", data, "--out", tmp_path / device, "--device", device])
        assert res.returncode == 0, res.stderr
    cpu = json.loads((tmp_path / "cpu" / "predictions.json").read_text())
    gpu = json.loads((tmp_path / "cuda" / "predictions.json").read_text())
    assert cpu == gpu


@pytest.mark.gpu
@pytest.mark.skipif(NO_CUDA, reason="needs a CUDA GPU")
def test_place_moves_a_model_to_the_gpu():
    lm = tiny_loaded_model("qa")
    where = place(lm.model, "cuda")
    assert where.startswith("cuda (") and next(lm.model.parameters()).is_cuda


def test_a_float16_checkpoint_evaluates_with_bf16_autocast_on_the_cpu(tmp_path):
    """transformers keeps a checkpoint's stored dtype: a float16 checkpoint loaded as float16, and `eval --bf16`
    on the CPU failed ("mixed dtype (CPU): expect parameter to have scalar type of Float"); it runs in float32 on
    the CPU now, with bf16 autocast where asked."""
    lm = tiny_loaded_model("qa")
    folder = tmp_path / "fp16"
    lm.model.to(torch.float16).save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    for extra in ([], ["--bf16"]):
        res = run_cli(["eval", "--model", folder, "--data", data, "--out", tmp_path / f"out{len(extra)}",
                       "--device", "cpu", *extra])
        assert res.returncode == 0, res.stderr[-1500:]
