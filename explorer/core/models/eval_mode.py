"""One way to run a model for inference: eval mode (dropout off), no autograd, the caller's mode restored.

Every inference entry point (the probe, Classify, the classification dev table, QA inference for
``eval`` / the tau study / compare, the training loop's dev evaluation and watch examples, saliency)
runs its forwards inside :func:`inference`, so the same input gives identical logits even when the model
object was left in train mode (handed over right after a training step, or by a caller that never called
``model.eval()``) and the caller gets back the model exactly as it was: every submodule's ``training``
flag is restored, not only the top module's. Source: PyTorch's ``Module.eval`` / ``torch.inference_mode``
documentation; the "different results each run" reports against transformers pipelines (case
eval-mode-determinism).
"""

from __future__ import annotations

import contextlib
from typing import Iterator


@contextlib.contextmanager
def inference(model, *, gradients: bool = False) -> Iterator[None]:
    """Run the block with ``model`` (a ``torch.nn.Module``) in eval mode and restore each submodule's
    train/eval flag afterwards, also when the block raises.

    Args:
        model: the module whose forwards run in the block (its dropout layers are switched off).
        gradients: False (default): the block runs under ``torch.inference_mode()`` (no autograd, least
            memory). True: under ``torch.enable_grad()``, for attributions that differentiate the logits
            (saliency); the model is still in eval mode.
    """
    import torch

    # a model already in eval mode (the inspector's) skips Module.eval, a Python call per submodule (about 1 ms of
    # each probe on a 2-core CPU), and only the flags that differ afterwards are set back
    modes = [(m, m.training) for m in model.modules()]
    if any(training for _m, training in modes):
        model.eval()
    try:
        with (torch.enable_grad() if gradients else torch.inference_mode()):
            yield
    finally:
        for module, training in modes:
            if module.training != training:
                module.training = training
