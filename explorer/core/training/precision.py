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


def scores_in_fp32(is_regression: bool) -> bool:
    """Whether a model's evaluation forward must run in fp32 whatever the run's mixed precision: a regression
    head's score (STS-B's 0-5 similarity). bf16 keeps 8 bits of mantissa, so a score near 2.5 comes out in
    steps of 1/64 (0.016): an undertrained head whose scores span 0.06 gives four distinct values, and a
    Pearson correlation of those moves in its second digit with how the rows fell into batches; the training
    evaluation (Best dev) and Classify: dev set then printed 0.406 and 0.39 for the same checkpoint on the same
    rows. Class logits are only ranked (argmax) and keep bf16."""
    return bool(is_regression)


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
