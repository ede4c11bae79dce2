"""Choosing the mixed precision: "auto" -> "bf16" where bf16 matmul is fast, else "no" (fp32).

bf16 autocast pays off only with hardware bf16 matmul: CUDA GPUs with bf16 support (Ampere and
newer) and Intel CPUs with AMX tiles (Sapphire Rapids and newer), where it measured ~5x the fp32
matmul rate (docs/formulas.md, speed notes). On CPUs without AMX (or AVX512-BF16), oneDNN emulates
bf16 and it is 4-5x *slower* than fp32, so "auto" keeps fp32 there and an explicit "bf16" gets a
warning (:func:`bf16_warning`). fp16 is only offered on CUDA.
"""

from __future__ import annotations


def cpu_has_amx() -> bool:
    """True when this CPU exposes AMX tiles to torch (torch.cpu._is_amx_tile_supported)."""
    import torch

    probe = getattr(torch.cpu, "_is_amx_tile_supported", None)
    if probe is not None:
        try:
            return bool(probe())
        except Exception:  # noqa: BLE001 - a private API: any failure means "unknown" -> no
            return False
    try:  # older torch: the kernel's CPU flags (Linux)
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            return "amx_bf16" in fh.read()
    except OSError:
        return False


def evaluation_forward_precision() -> str:
    """The precision of every evaluation forward, whatever the run's mixed precision: "fp32".

    A training run's evaluations (Best dev, checkpoints/best) and the inspectors that score a checkpoint again on
    the same rows (Classify: dev set, Compare two classifiers) must print the same figure, so a person can check
    one against the other. Under bf16 a logit keeps 8 bits of mantissa and its rounding depends on how the rows
    fell into batches: a dev row at P 0.500 was "right" in the run's evaluation and "wrong" in Classify: dev set
    (accuracy 74.33 against 74.00 for one checkpoint on the same 300 rows), and a regression head's near-constant
    scores near 2.5 came out in steps of 1/64, so their Pearson correlation read 0.406 and 0.39. Training steps
    keep bf16 where it is fast; an evaluation costs a small share of a run.
    """
    return "fp32"


def resolve_mixed_precision(value: str, device_type: str | None = None) -> str:
    """"auto" -> "bf16" or "no" for the device accelerate will use; other values pass through.

    Args:
        value: "auto", "no", "fp16" or "bf16".
        device_type: "cuda", "cpu", "mps", ...; None = what torch would pick (cuda if available).

    Returns:
        "no", "fp16" or "bf16".
    """
    if value != "auto":
        return value
    import torch

    if device_type is None:
        device_type = "cuda" if torch.cuda.is_available() else "cpu"
    if device_type == "cuda":
        return "bf16" if torch.cuda.is_bf16_supported() else "no"
    if device_type == "cpu":
        return "bf16" if cpu_has_amx() else "no"
    return "no"


def cpu_has_native_bf16() -> bool:
    """True when this CPU computes bf16 in hardware: AMX tiles or AVX512-BF16."""
    if cpu_has_amx():
        return True
    import torch

    probe = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
    if probe is not None:
        try:
            return bool(probe())
        except Exception:  # noqa: BLE001 - a private API: any failure means "unknown" -> no
            return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            return "avx512_bf16" in fh.read()
    except OSError:
        return False


def bf16_warning(mixed_precision: str, device_type: str | None = None) -> str | None:
    """The warning to show when bf16 is asked for on a CPU that only emulates it, else None.

    Args:
        mixed_precision: the setting ("auto", "no", "fp16", "bf16"); "auto" never picks slow bf16.
        device_type: "cpu", "cuda", ...; None = what torch would pick (cuda if available).

    Returns:
        One sentence (for a ``log`` event with level "warning", the CLI and the launcher), or None.
    """
    if mixed_precision != "bf16":
        return None
    if device_type is None:
        import torch

        device_type = "cuda" if torch.cuda.is_available() else "cpu"
    if device_type != "cpu" or cpu_has_native_bf16():
        return None
    return ("mixed_precision bf16 on a CPU without native bf16 (no AMX or AVX512-BF16): bf16 is emulated "
            "there and training runs about 4-5x slower than fp32; use mixed_precision no (fp32) or auto")
