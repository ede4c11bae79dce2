"""scripts/gpu_check.py, the parts that run without a GPU: the loss-curve comparison of
the precisions, the smoothing it uses, and its refusal to run on a machine without CUDA unless asked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import gpu_check  # noqa: E402


def test_smoothing_is_tensorboards_debiased_ema():
    assert gpu_check.smooth([2.0, 2.0, 2.0]) == pytest.approx([2.0, 2.0, 2.0])   # debiased: no pull toward 0
    assert gpu_check.smooth([1.0, 3.0], weight=0.5) == pytest.approx([1.0, (0.25 + 0.75 * 0 + 1.5) / 0.75])


def test_curves_within_tolerance_agree_and_a_drifting_one_does_not():
    ref = [5.0 - 0.02 * k for k in range(200)]
    close = [v * (1 + 0.01 * (-1) ** k) for k, v in enumerate(ref)]        # ±1 % noise
    drift = [v * (1 + 0.002 * k) for k, v in enumerate(ref)]                 # 40 % high by the end
    assert gpu_check.compare_losses(ref, close)["agree"]
    far = gpu_check.compare_losses(ref, drift)
    assert not far["agree"] and far["max_smoothed_rel_diff"] > gpu_check.CURVE_TOLERANCE


def test_curves_of_other_lengths_are_refused():
    with pytest.raises(ValueError, match="same number"):
        gpu_check.compare_losses([1.0] * 30, [1.0] * 29)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_without_cuda_it_says_so_and_stops(tmp_path, capsys):
    assert gpu_check.main(["--out", str(tmp_path / "out")]) == 2
    assert "no CUDA GPU here" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
