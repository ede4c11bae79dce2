"""Which device inference runs on: ``--device`` of ``eval``, ``predict`` and ``probe`` (torch-free until used).

"auto" (the default) is the first CUDA GPU when torch sees one, else the CPU: an engineer on a GPU server gets
the GPU without a flag, a laptop the CPU as before. "cpu", "cuda" and "cuda:N" are taken as asked; a CUDA device
this torch cannot use is refused with the reason (no GPU seen, a CPU-only build of torch, an index past the
GPUs), never a torch traceback. Training chooses its device through accelerate (explorer.core.training.setup),
the inspector child through EXPLORER_INSPECT_GPU (explorer.worker.inspector_ops.on_device).
"""

from __future__ import annotations

import re

from explorer.core.errors import UserError

DEVICE_HELP = ("where the model runs: auto (default: the first CUDA GPU torch sees, else the CPU), cpu, cuda or "
               "cuda:N")


class DeviceError(UserError):
    """A device that cannot be used here; the message says why and what torch sees."""


def resolve_device(name: str = "auto") -> str:
    """The torch device string for ``name`` ("auto", "cpu", "cuda", "cuda:N").

    Raises:
        DeviceError: an unknown name, or a CUDA device this torch cannot use (why, and which torch build).
    """
    import torch

    name = (name or "auto").strip().lower()
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return "cpu"
    match = re.fullmatch(r"cuda(?::(\d+))?", name)
    if not match:
        raise DeviceError(f"--device {name!r}: use auto, cpu, cuda or cuda:N")
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
        raise DeviceError(f"--device {name}: torch {torch.__version__} ({build}) sees no CUDA GPU here; "
                          "use --device cpu, or install the PyTorch build for this machine's CUDA (pytorch.org)")
    index = int(match.group(1) or 0)
    if index >= torch.cuda.device_count():
        raise DeviceError(f"--device {name}: this machine has {torch.cuda.device_count()} CUDA GPU(s), "
                          f"numbered from 0")
    return f"cuda:{index}" if match.group(1) is not None else "cuda"


def place(model, name: str = "auto", *, bf16: bool = False) -> str:
    """Move ``model`` (a torch module) to the device ``name`` resolves to; returns a short description for the
    user ("cpu", "cuda (NVIDIA H200)"). Raises DeviceError as :func:`resolve_device`.

    A checkpoint stored in float16 loads as float16 (transformers keeps the stored dtype); it is made float32
    on the CPU (float16 arithmetic is emulated there, and bf16 autocast cannot mix it: "mixed dtype (CPU):
    expect parameter to have scalar type of Float") and wherever ``bf16`` autocast will run."""
    import torch

    device = resolve_device(name)
    halved = any(p.dtype == torch.float16 for p in model.parameters())
    if halved and (device == "cpu" or bf16):
        model.float()
    model.to(device)
    if device.startswith("cuda"):
        return f"{device} ({torch.cuda.get_device_name(torch.device(device))})"
    return device
