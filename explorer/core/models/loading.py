"""Loading a model source (explorer.core.models.sources: hub id, local folder, ``bundled:minilm``): its
tokenizer and the task head. Offline, a hub id that is not in the local cache fails fast with
:class:`ModelSourceError`.

Weights load through safetensors when the source has them; ``trust_remote_code`` is never set
unless the caller asks for it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from explorer.core.hub import hub_reachable
from explorer.core.models.load_report import KIND_FINE_TUNED, LoadReport
from explorer.core.models.sources import resolve_source
from explorer.core.specs.heads import architecture_words, for_model_head, model_heads, recognise

from explorer.core.errors import ModelSourceError  # noqa: E402,F401 - re-exported (defined in core/errors.py)


@dataclass
class LoadedModel:
    """A tokenizer + model pair and what we learned while loading it.

    Attributes:
        model: the transformers model in eval mode (``AutoModelFor<task>``).
        tokenizer: a *fast* tokenizer (offset mappings are required for spans).
        source: the source string as given.
        path: the local folder the files came from (resolved for bundled and cached hub ids).
        task: its head's ``model_head`` (explorer.core.specs.heads.model_heads()).
        head_initialised: True when the task head was freshly (randomly) initialised, i.e. the
            encoder was never fine-tuned for this task; the UI says so plainly.
        missing_keys: parameter names that were not in the checkpoint.
        load_report: what loading did (newly initialised / missing / unexpected / mismatched weights,
            ``kind``, ``encoder_loaded``, ``summary()``); None when unknown.
        head_note: when the task head is new, what the checkpoint was made for and which head is new
            or unused (:func:`head_note`); "" otherwise.
        tokenizer_note: when the tokenizer is not the checkpoint's own, where it comes from ("tokenizer from
            bundled:minilm: the checkpoint has none ..."; explorer.core.models.tokenizer_source); "" otherwise.
    """

    model: object
    tokenizer: object
    source: str
    path: str
    task: str
    head_initialised: bool
    missing_keys: list[str] = field(default_factory=list)
    load_report: LoadReport | None = None
    head_note: str = ""
    tokenizer_note: str = ""

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
            if report is not None and report.kind != KIND_FINE_TUNED:  # not when another task's head filled it
                head = f"{report.kind}: {head}"
        else:
            head = f"{KIND_FINE_TUNED} head"
            if report is not None and report.unexpected:
                head += f" ({report.summary()})"
        tokenizer = f"; {self.tokenizer_note}" if self.tokenizer_note else ""
        return (f"{self.source}: {cfg.model_type}, {cfg.num_hidden_layers} layers, "
                f"{cfg.num_attention_heads} heads, hidden {cfg.hidden_size}; {head}{tokenizer}")


def model_of(loaded_or_model):
    """The transformers model of a LoadedModel, or the argument itself when it is already a model.

    Not ``getattr(x, "model", x)``: ModernBERT's task models keep their encoder in ``.model``.
    """
    return loaded_or_model.model if isinstance(loaded_or_model, LoadedModel) else loaded_or_model


def _is_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")


_IMPORTS = threading.Lock()


def _import_transformers(task: str) -> None:
    """Import the transformers names a load uses, one thread at a time. transformers resolves its names lazily
    on first use, and two threads' first uses at once (the inspector process loading both checkpoints of Compare
    two classifiers) failed for the thread that lost the race: "cannot import name 'AutoConfig' from
    'transformers'", a load that worked when asked again."""
    with _IMPORTS:
        from transformers import AutoConfig, AutoTokenizer  # noqa: F401 - resolved here, under the lock
        from transformers.models.auto import modeling_auto  # noqa: F401
        from transformers.utils import logging  # noqa: F401

        if for_model_head(task) is not None:
            _auto_class(task)


def _auto_class(task: str):
    """The transformers ``AutoModelFor…`` class of model head ``task`` (its spec's ``auto_class``)."""
    import transformers

    head = for_model_head(task)
    if head is None:
        raise ModelSourceError(f"unknown task head {task!r}; expected one of {model_heads()}")
    return getattr(transformers, head.auto_class)


def _hub_available_locally(hub_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(hub_id, "config.json")
        return isinstance(hit, str)
    except Exception:  # noqa: BLE001 - a cache lookup that fails in any way means "not cached"
        return False


def _from_pretrained(task: str, path: str, attn_implementation: str, model_kwargs: dict):
    """(model, loading info); a family without the asked attention implementation (DeBERTa-v2/v3 has no
    SDPA, only its own eager attention) loads with eager instead."""
    try:
        return _auto_class(task).from_pretrained(path, output_loading_info=True,
                                                 attn_implementation=attn_implementation, **model_kwargs)
    except ValueError as exc:
        if "attention implementation" not in str(exc) or attn_implementation == "eager":
            raise
        return _auto_class(task).from_pretrained(path, output_loading_info=True, attn_implementation="eager",
                                                 **model_kwargs)


def tokenizer_folder(path: str) -> str:
    """Where the tokenizer of model folder ``path`` is read from (:func:`explorer.core.models.tokenizer_source.
    find_tokenizer`: the folder, its parent, its base model, a model with its word embeddings). Raises
    ModelSourceError when there is none (a made-up tokenizer would read every word as [UNK])."""
    from explorer.core.models.tokenizer_source import find_tokenizer

    return find_tokenizer(path).folder


def load_model(source: str, task: str = "qa", *, num_labels: int | None = None,
               trust_remote_code: bool = False, attn_implementation: str = "sdpa",
               hub_timeout_s: float = 10.0, init_seed: int = 0, id2label: dict | None = None,
               new_head: bool = False, refuse_other_task: bool = False,
               download_progress=None, cancelled=None, tokenizer: str | None = None) -> LoadedModel:
    """Load tokenizer + ``AutoModelFor<task>`` from a source, in eval mode.

    Args:
        source: hub id, local folder or ``bundled:minilm``.
        task: "qa" (start/end head), "classification", "multiple_choice", "token_classification".
        num_labels: for classification heads; ignored when the checkpoint already has that head.
        trust_remote_code: passed through only when the user asks for it.
        attn_implementation: "sdpa" (default, fast) or "eager" (needed for output_attentions).
        hub_timeout_s: how long a hub request may take before we call the hub unreachable.
        init_seed: seed for any freshly initialised head, so an untrained head is the same on every load.
        id2label: class names by id for a classification head ({0: "AGAINST", ...}); written into the model's
            config (and so into every checkpoint's config.json, which a transformers pipeline reads).
        new_head: drop the checkpoint's task head (whatever its size) and start a fresh one; the encoder's
            weights still load.
        refuse_other_task: refuse a checkpoint fine-tuned for another task (:func:`other_task_error`), as
            the commands that only use the ``task`` head do (``probe`` and ``eval`` on a classifier),
            instead of putting a new random head on it.
        download_progress: for a hub id not in the cache, called with (bytes done, bytes total) while its files
            download (explorer.core.hub.fetch); ``cancelled()`` polled meanwhile stops the download.

    Returns:
        LoadedModel.

    Raises:
        Cancelled: ``cancelled()`` turned true during a download (no half file is left in the cache).
        ModelSourceError: folder missing, hub unreachable (offline or no network), missing or gated hub
            repository, a download cut off, not a model,
            a tokenizer without offset mappings (a slow tokenizer), no tokenizer for a checkpoint folder, a
            tokenizer that does not fit the embedding matrix, or (``refuse_other_task``) a checkpoint fine-tuned
            for another task.
    """
    _import_transformers(task)
    from transformers.utils import logging as hf_logging

    path = resolve_source(source)
    is_hub = not Path(path).exists()
    kwargs: dict = {}
    if is_hub:
        _check_hub_source(source, path, hub_timeout_s)
        path = _download(path, download_progress, cancelled)
    if trust_remote_code:
        kwargs["trust_remote_code"] = True
    model_kwargs = _head_kwargs(kwargs, num_labels, id2label, new_head)
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar on the CLI's stderr
    try:
        tok, model, info, choice = _read_checkpoint(path, source, task, kwargs, model_kwargs, tokenizer=tokenizer,
                                                    attn_implementation=attn_implementation, init_seed=init_seed,
                                                    new_head=new_head, refuse_other_task=refuse_other_task)
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
    except ImportError as exc:   # a library of this installation, not the checkpoint's files
        raise ModelSourceError(f"could not load {source!r}: a library of this installation failed to import "
                               f"({str(exc).splitlines()[0][:200]}); the checkpoint's files were not read") from None
    except Exception as exc:  # noqa: BLE001 - e.g. safetensors' SafetensorError for a torn weights file
        raise ModelSourceError(f"could not read the weights in {source!r} (torn or not a weights file?): "
                               f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
    if not getattr(tok, "is_fast", False):
        raise ModelSourceError(f"{source!r} has only a slow tokenizer; BERT Explorer needs a fast "
                               "tokenizer (tokenizer.json) for character offsets")
    model.eval()
    loaded = _loaded(model, tok, info, source, path, task)
    loaded.tokenizer_note = choice.note
    return loaded


def _read_checkpoint(path: str, source: str, task: str, kwargs: dict, model_kwargs: dict, *, tokenizer: str | None,
                     attn_implementation: str, init_seed: int, new_head: bool, refuse_other_task: bool):
    """load_model's reading of a local folder: its config (architecture and task checked), the tokenizer that reads
    it (explorer.core.models.tokenizer_source) and the model with its load report. Returns (tokenizer, model, info,
    TokenizerChoice). Raises ModelSourceError, or what transformers raises (load_model words it)."""
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(path, **kwargs)
    check_architecture(config, task, source)
    wrong = other_task_error(config, task, source) if refuse_other_task else None
    if wrong:
        raise ModelSourceError(wrong)
    from explorer.core.models.tokenizer_source import check_vocabulary, find_tokenizer

    choice = find_tokenizer(path, source, tokenizer)
    tok = AutoTokenizer.from_pretrained(choice.folder, **kwargs)
    check_vocabulary(len(tok), getattr(config, "vocab_size", None), source, choice.source)
    import torch

    # A freshly initialised head must be the same on every load (reproducible probes and caches):
    # seed the init from a forked RNG so the caller's global RNG state is untouched.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed)
        model, info = _from_pretrained(task, path, attn_implementation, model_kwargs)
        if new_head:
            fresh = reset_head(model)
            info = dict(info)
            info["missing_keys"] = sorted(set(info.get("missing_keys", [])) | set(fresh))
    return tok, model, info, choice


def _download(hub_id: str, progress, cancelled) -> str:
    """A hub id's snapshot folder in the cache, downloaded first when needed (explorer.core.hub.fetch).
    Loading from the folder keeps transformers off the network. Raises ModelSourceError or Cancelled."""
    from explorer.core.hub import HubError, cached_snapshot, fetch

    if _is_offline():
        cached = cached_snapshot(hub_id)
        if cached is not None:
            return cached
    try:
        folder = fetch(hub_id, progress=progress, cancelled=cancelled)
        if not any(Path(folder).glob("*.safetensors")):   # an older repository: the PyTorch weights file, which
            folder = fetch(hub_id, progress=progress, cancelled=cancelled,   # transformers reads weights-only
                           allow_patterns=["pytorch_model.bin", "pytorch_model.bin.index.json", "pytorch_model-*.bin"])
        return folder
    except HubError as exc:
        raise ModelSourceError(str(exc)) from None


def _check_hub_source(source: str, path: str, hub_timeout_s: float) -> None:
    """A hub id must be cached when offline, or the hub reachable; sets the hub's request timeouts.
    Raises ModelSourceError (what to use instead)."""
    if _is_offline() and not _hub_available_locally(path):
        raise ModelSourceError(
            f"{source!r} is a Hugging Face hub id, and this machine is offline (HF_HUB_OFFLINE=1) with "
            "no cached copy. Use a local folder (a save_pretrained output or a run checkpoint) "
            "or the bundled offline encoder: bundled:minilm")
    if not _is_offline() and not _hub_available_locally(path) and not hub_reachable(min(hub_timeout_s, 5.0)):
        raise ModelSourceError(
            f"{source!r} looks like a Hugging Face hub id, but the hub cannot be reached from this machine "
            "(no network?) and there is no cached copy. Use a local folder (a save_pretrained output or a "
            "run checkpoint) or the bundled offline encoder: bundled:minilm")
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(int(hub_timeout_s)))
    os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(int(hub_timeout_s)))


def _head_kwargs(kwargs: dict, num_labels: int | None, id2label: dict | None, new_head: bool) -> dict:
    """from_pretrained's keyword arguments for the task head: num_labels, id2label / label2id (names by id),
    ignore_mismatched_sizes for a new head."""
    model_kwargs = dict(kwargs)
    if num_labels is not None:
        model_kwargs["num_labels"] = num_labels
    if id2label:
        model_kwargs["id2label"] = {int(i): str(n) for i, n in id2label.items()}
        model_kwargs["label2id"] = {str(n): int(i) for i, n in id2label.items()}
        model_kwargs["num_labels"] = len(id2label)
    if new_head:
        model_kwargs["ignore_mismatched_sizes"] = True
    return model_kwargs


def _loaded(model, tokenizer, info: dict, source: str, path, task: str) -> LoadedModel:
    """The LoadedModel with its load report and whether its ``task`` head is new (weights outside the encoder
    missing, or a checkpoint saved for another task), and the head note that says so."""
    report = LoadReport.from_loading_info(info, list(model.state_dict()),
                                          encoder_prefix=getattr(model, "base_model_prefix", "") or "")
    missing = report.missing
    prefix = getattr(model, "base_model_prefix", "") or ""
    head_initialised = any(not (prefix and k.startswith(prefix + ".")) for k in missing)  # outside the encoder
    recorded = recognise(model.config)   # the head its checkpoint was saved with (config.json architectures)
    head_initialised = head_initialised or (recorded is not None and recorded.model_head != task)  # another task's
    note = head_note(model, task, missing, info.get("unexpected_keys", []), source) if head_initialised else ""
    return LoadedModel(model=model, tokenizer=tokenizer, source=source, path=str(path), task=task,
                       head_initialised=head_initialised, missing_keys=missing, load_report=report,
                       head_note=note)


def reset_head(model) -> list[str]:
    """Re-initialise every weight outside the encoder (the task head) with the model's own init; returns
    their names. The caller seeds the RNG."""
    prefix = getattr(model, "base_model_prefix", "") or ""
    names = []
    for child_name, child in model.named_children():
        if child_name == prefix:
            continue
        for module in child.modules():
            model._init_weights(module)
        names += [f"{child_name}.{n}" for n, _ in child.named_parameters()]
    return names


ENCODER_FAMILIES = "BERT, RoBERTa, DistilBERT, ALBERT, ELECTRA, DeBERTa-v2/v3, XLM-RoBERTa or ModernBERT"


def _head_words(task: str) -> str:
    """Model head ``task`` in a sentence ("question-answering (start/end)"); the name itself when unknown."""
    head = for_model_head(task)
    return head.words if head is not None else task


def other_task_error(config, task: str, source: str) -> str | None:
    """The message for a checkpoint fine-tuned for another task than ``task`` (the head its config's
    ``architectures`` records, explorer.core.specs.heads.recognise), e.g. "'run/best' is a classification model
    (BertForSequenceClassification), not a question-answering one: use Classify in the app (or
    bert-explorer predict)"; None when it was fine-tuned for ``task``, or is a bare encoder / pre-training
    checkpoint (those take a new head)."""
    recorded = recognise(config)
    if recorded is None or recorded.model_head == task:
        return None
    wanted = for_model_head(task)
    wanted_words = wanted.model_words if wanted is not None else f"a {task} model"
    wanted_words = wanted_words.replace("a ", "", 1).replace(" model", "")
    arch = ", ".join(config.architectures)
    return f"{source!r} is {recorded.model_words} ({arch}), not a {wanted_words} one: {recorded.use}"


def source_other_task_error(source: str, task: str) -> str | None:
    """:func:`other_task_error` for a local folder (or bundled model) read from its config.json alone, before
    any window setting is resolved or weight read; None when it cannot tell (a hub id, an unreadable
    config: load_model(refuse_other_task=True) checks those)."""
    import json
    from types import SimpleNamespace

    try:
        config_file = Path(resolve_source(source)) / "config.json"
        architectures = json.loads(config_file.read_text(encoding="utf-8")).get("architectures")
    except (ModelSourceError, OSError, ValueError, AttributeError):
        return None
    return other_task_error(SimpleNamespace(architectures=architectures), task, source)


def check_architecture(config, task: str, source: str) -> None:
    """Refuse, before any weight is read, a model that cannot do ``task`` in this app at all.

    An encoder of any family can take any task head (a new head is reported by :func:`head_note`); a
    decoder-only model (GPT-2, Llama: no [CLS] token, left-to-right attention) or an encoder-decoder
    (T5, BART) cannot.

    Raises:
        ModelSourceError: naming the model type, its checkpoint architecture and what to use instead.
    """
    from transformers.models.auto import modeling_auto as auto

    model_type = getattr(config, "model_type", "?")
    arch = ", ".join(getattr(config, "architectures", None) or []) or "no architecture recorded"
    what = _head_words(task)
    if getattr(config, "is_encoder_decoder", False):
        raise ModelSourceError(
            f"{source!r} is an encoder-decoder model ({model_type}, {arch}); BERT Explorer needs an encoder "
            f"with a {what} head. Use an encoder checkpoint: {ENCODER_FAMILIES}")
    causal = model_type in auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    masked = model_type in auto.MODEL_FOR_MASKED_LM_MAPPING_NAMES
    if causal and not masked:
        raise ModelSourceError(
            f"{source!r} is a decoder-only language model ({model_type}, {arch}): it reads text left to right "
            f"and has no [CLS]/[SEP] tokens, so it cannot take the {what} head here. Use an encoder "
            f"checkpoint: {ENCODER_FAMILIES}")


def head_note(model, task: str, missing_keys: list[str], unexpected_keys: list[str], source: str) -> str:
    """One plain sentence on a task head that the checkpoint does not hold.

    Says what the checkpoint was made for (from its recorded architecture, e.g. BertForMaskedLM), which
    head is new (the missing weights outside the encoder, found through the model class's
    ``base_model_prefix``), which of the checkpoint's weights go unused, and what to do.
    """
    prefix = getattr(model, "base_model_prefix", "") or ""
    new = sorted({k.split(".")[0] for k in missing_keys if prefix and not k.startswith(prefix + ".")})
    unused = sorted({k.split(".")[0] for k in unexpected_keys if prefix and not k.startswith(prefix + ".")})
    archs = getattr(model.config, "architectures", None) or []
    arch = archs[0] if archs else ""
    kind = architecture_words(arch)
    bare = kind is None and arch.endswith("Model")
    if kind is None and arch:
        kind = "bare encoder (no task head)" if bare else arch
    made_for = f"a {kind} checkpoint ({arch})" if kind else "a checkpoint with no recorded architecture"
    what = _head_words(task)
    if new:
        parts = [f"{source} is {made_for}: the {what} head ({', '.join(new)}) is new, randomly initialised"]
    else:  # same layer names for both heads (ModernBERT's classifier): the weights load, trained for another task
        parts = [f"{source} is {made_for}: its head's weights fill the {what} head, but they were trained "
                 "for another task"]
    if unused and not bare:
        parts.append(f"its own head ({', '.join(unused)}) is not used")
    advice = ("its answers and scores mean nothing until it is fine-tuned for this task "
              "(bert-explorer train), or open a checkpoint already fine-tuned for it")
    head = for_model_head(task)
    if head is not None and head.hub_presets:
        advice += " (the inspector's hub presets)"
    return "; ".join(parts) + "; " + advice + "."


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
