"""Which tokenizer reads a checkpoint's text, and the check that it fits the model (torch-free, Qt-free).

A Hugging Face Trainer saves the tokenizer beside the weights only when it was given one; a script that
calls ``Trainer(model=..., args=..., train_dataset=...)`` leaves ``checkpoint-N`` folders with weights and
config only. ``AutoTokenizer.from_pretrained`` on such a folder builds a 5-token BERT tokenizer that reads
every word as [UNK], and every probability computed from it is meaningless while the by-hand checks still
pass. :func:`find_tokenizer` looks, in this order:

1. the tokenizer given by the user (``--tokenizer``);
2. the checkpoint folder itself;
3. its parent (a Trainer ``output_dir`` that holds the tokenizer once);
4. where the model came from: ``_name_or_path`` in its config.json (transformers 4 writes it; 5 does not), or
   ``base_model`` in a model card (README.md) of the folder or its parent: a local folder that exists, the
   bundled model, or a hub id in the local cache;
5. a model on this machine (the bundled encoder, hub snapshots in the local cache) whose word-embedding matrix
   has the checkpoint's shape and nearly its values (fine-tuning moves word embeddings by well under 1 %:
   0.07 % relative after 40 Trainer steps on bundled MiniLM; another model of the same shape differs
   by ~140 %);

and refuses (:class:`~explorer.core.errors.ModelSourceError`) when none is found, naming the folder and what to
add. :func:`check_vocabulary` then refuses a tokenizer whose vocabulary is far smaller than the model's
embedding matrix (text read as [UNK]) or larger than it (ids out of range), with both numbers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import ModelSourceError
from explorer.core.models.sources import BUNDLED_MODELS, BUNDLED_PREFIX, resolve_source

TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer_config.json", "spiece.model", "vocab.json",
                   "sentencepiece.bpe.model")
EMBEDDING_MATCH = 0.05      # relative Frobenius distance ||A - B|| / ||B|| under which two matrices are one model's
MIN_VOCAB_SHARE = 0.9       # a tokenizer with fewer tokens than this share of the embedding rows is refused
COMMANDS_WITH_TOKENIZER = "bert-explorer predict, eval, probe, explain, embed"


@dataclass(frozen=True)
class TokenizerChoice:
    """Where the tokenizer of a model comes from.

    Attributes:
        folder: what ``AutoTokenizer.from_pretrained`` is given (a local folder, or a hub id).
        source: how the user names it (``bundled:minilm``, a folder, a hub id).
        note: "" when the checkpoint holds its own tokenizer; else one line for the user, e.g. "tokenizer from
            bundled:minilm: the checkpoint has none (its word embeddings match that model's)".
    """

    folder: str
    source: str
    note: str = ""


def has_tokenizer(folder: str | Path) -> bool:
    """Does ``folder`` hold a tokenizer file (``tokenizer.json``, ``vocab.txt``, ...)?"""
    folder = Path(folder)
    return folder.is_dir() and any((folder / f).is_file() for f in TOKENIZER_FILES)


def find_tokenizer(path: str, source: str = "", given: str | None = None) -> TokenizerChoice:
    """The tokenizer for model folder ``path`` (see the module docstring for the order).

    Args:
        path: the model's local folder (resolved source) or a hub id (returned as it is).
        source: the model as the user named it (for messages); default ``path``.
        given: a tokenizer source the user gave (hub id, folder, ``bundled:minilm``); wins over all others.

    Raises:
        ModelSourceError: ``given`` cannot be found; or no tokenizer anywhere (names the folder, what to add).
    """
    source = source or path
    if given:
        folder = _resolve(given)
        if folder is None:
            raise ModelSourceError(f"tokenizer {given!r}: no such folder, and not a hub id in the local cache")
        return TokenizerChoice(folder, given, "" if folder == path else f"tokenizer from {given} (as given)")
    folder = Path(path)
    if not folder.is_dir() or has_tokenizer(folder):
        return TokenizerChoice(path, source)
    if has_tokenizer(folder.parent):
        return TokenizerChoice(str(folder.parent), str(folder.parent),
                               f"tokenizer from {folder.parent}: the checkpoint has none")
    for named in _recorded_bases(folder):
        found = _resolve(named)
        if found is not None and Path(found) != folder:
            shown = _shown(named, found)
            return TokenizerChoice(found, shown, f"tokenizer from {shown}: the checkpoint has none "
                                                 "(its config or model card names that base model)")
    match = embedding_match(folder)
    if match is not None:
        found, shown, distance = match
        return TokenizerChoice(found, shown, f"tokenizer from {shown}: the checkpoint has none (its word "
                                             f"embeddings match that model's, relative difference {distance:.4f})")
    raise ModelSourceError(no_tokenizer_message(source, folder))


def no_tokenizer_message(source: str, folder: Path) -> str:
    """The refusal for a checkpoint without a tokenizer: which folders were looked in, and what to add."""
    named = _recorded_bases(folder)
    said = (f"its config names {named[0]!r}, which is not on this machine" if named
            else "its config.json names no base model")
    return (f"{source} has no tokenizer (no {', '.join(TOKENIZER_FILES[:3])} in {folder} or in {folder.parent}), "
            f"and where its model came from cannot be told ({said}; its word embeddings match no model here). "
            "A made-up tokenizer would read every word as [UNK], so it is not loaded. Save the base model's "
            f"tokenizer beside the weights (tokenizer.save_pretrained('{folder}'), or pass processing_class="
            f"tokenizer to the Trainer), or give it on the command line: --tokenizer <base model or folder> "
            f"({COMMANDS_WITH_TOKENIZER}).")


def check_vocabulary(n_tokens: int, vocab_size: int | None, source: str, tokenizer_source: str) -> None:
    """Refuse a tokenizer that does not fit the model's embedding matrix.

    Args:
        n_tokens: ``len(tokenizer)`` (its largest id + 1, added tokens included).
        vocab_size: the model config's ``vocab_size`` (rows of the word-embedding matrix); None: not checked.
        source, tokenizer_source: how the model and the tokenizer are named in the message.

    Raises:
        ModelSourceError: fewer than MIN_VOCAB_SHARE of the rows (text read as [UNK]), or more rows than the
            matrix has (ids out of range), with both numbers.
    """
    if not vocab_size or n_tokens <= 0:
        return
    if n_tokens < MIN_VOCAB_SHARE * vocab_size:
        raise ModelSourceError(
            f"the tokenizer of {source} (from {tokenizer_source}) has {n_tokens:,} tokens but the model's "
            f"embedding matrix has {vocab_size:,} rows: it is not this model's tokenizer, and most words would be "
            "read as [UNK]. Use the tokenizer the model was trained with (save it beside the weights, or "
            "--tokenizer on the command line)")
    if n_tokens > vocab_size:
        raise ModelSourceError(
            f"the tokenizer of {source} (from {tokenizer_source}) has {n_tokens:,} tokens but the model's "
            f"embedding matrix has only {vocab_size:,} rows: ids from {vocab_size:,} on are out of range. Use "
            "the tokenizer the model was trained with, or resize the embeddings when tokens are added")


# -------------------------------------------------------------------------------------- where the model came from
def _recorded_bases(folder: Path) -> list[str]:
    """Base models the folder's files name: config.json's ``_name_or_path``, then ``base_model`` of a model card
    (README.md) in the folder or its parent; without the folder itself."""
    out = []
    try:
        named = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("_name_or_path")
    except (OSError, ValueError, AttributeError):
        named = None
    if isinstance(named, str) and named.strip():
        out.append(named.strip())
    for card in (folder / "README.md", folder.parent / "README.md"):
        out += _card_bases(card)
    return [n for n in dict.fromkeys(out) if Path(n).expanduser() != folder]


_BASE_LINE = re.compile(r"^base_model:\s*(\S.*)?$")


def _card_bases(card: Path) -> list[str]:
    """``base_model`` of a model card's YAML header (one value, or a list below the key)."""
    try:
        text = card.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if not text.startswith("---"):
        return []
    lines = text.split("\n---", 1)[0].splitlines()[1:]
    for i, line in enumerate(lines):
        m = _BASE_LINE.match(line.strip())
        if not m:
            continue
        if m.group(1):
            return [m.group(1).strip().strip("'\"")]
        items = []
        for nxt in lines[i + 1:]:
            if not nxt.strip().startswith("- "):
                break
            items.append(nxt.strip()[2:].strip().strip("'\""))
        return items
    return []


def _bundled_folders() -> dict[str, str]:
    """``bundled:<name>`` -> its model folder, for the bundled models installed here."""
    out = {}
    for name in BUNDLED_MODELS:
        try:
            out[BUNDLED_PREFIX + name] = resolve_source(BUNDLED_PREFIX + name)
        except ModelSourceError:
            continue
    return out


def _resolve(named: str) -> str | None:
    """A base model's name -> a local folder holding its tokenizer: ``bundled:...``, a bundled model's folder
    in another environment (its package name in the path), a local folder, or a hub id's cached snapshot."""
    from explorer.core.hub import cached_snapshot

    bundled = _bundled_folders()
    if named in bundled:
        return bundled[named]
    for name, package in BUNDLED_MODELS.items():
        if package in named.replace("-", "_") and BUNDLED_PREFIX + name in bundled:
            return bundled[BUNDLED_PREFIX + name]
    local = Path(named).expanduser()
    if local.is_dir():
        return str(local) if has_tokenizer(local) else None
    if local.exists() or named.startswith(("/", ".", "~")) or named.count("/") > 1:
        return None
    try:
        snap = cached_snapshot(named)   # a hub id (one word or owner/name) downloaded before
    except Exception:  # noqa: BLE001 - a name the cache cannot hold is no cached model
        return None
    return snap if snap and has_tokenizer(snap) else None


def _shown(named: str, folder: str) -> str:
    """How a found base model is named: ``bundled:<name>`` for a bundled one, else as it was named."""
    for shown, bundled in _bundled_folders().items():
        if Path(bundled) == Path(folder):
            return shown
    return named


# ------------------------------------------------------------------------------------------- embedding match
def _config(folder: Path) -> dict:
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def _shape(config: dict) -> tuple | None:
    vocab, hidden = config.get("vocab_size"), config.get("embedding_size") or config.get("hidden_size")
    return (int(vocab), int(hidden)) if isinstance(vocab, int) and isinstance(hidden, int) else None


def _cached_models() -> list[tuple[str, str]]:
    """(hub id, snapshot folder) of every model in the local hub cache that holds a tokenizer."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return []
    out = []
    for storage in sorted(Path(constants.HF_HUB_CACHE).glob("models--*")):
        repo = storage.name[len("models--"):].replace("--", "/")
        for snap in sorted((storage / "snapshots").glob("*")):
            if has_tokenizer(snap) and (snap / "config.json").is_file():
                out.append((repo, str(snap)))
                break
    return out


def _word_embeddings(folder: Path):
    """The word-embedding matrix of a folder's safetensors weights (a torch tensor), or None."""
    from safetensors import safe_open

    files = {}
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            files = json.loads(index.read_text(encoding="utf-8")).get("weight_map", {})
        except (OSError, ValueError):
            return None
    elif (folder / "model.safetensors").is_file():
        try:
            with safe_open(str(folder / "model.safetensors"), "pt") as f:
                files = {k: "model.safetensors" for k in f.keys()}
        except Exception:  # noqa: BLE001 - a torn or foreign file: no match, not an error
            return None
    key = next((k for k in files if k.endswith(("word_embeddings.weight", "tok_embeddings.weight"))), None)
    if key is None:
        return None
    try:
        with safe_open(str(folder / files[key]), "pt") as f:
            return f.get_tensor(key).float()
    except Exception:  # noqa: BLE001 - as above
        return None


def embedding_match(folder: Path) -> tuple[str, str, float] | None:
    """(model folder, its name, relative difference) of the first model on this machine (bundled, then the hub
    cache) whose word embeddings have the checkpoint's shape and differ by under EMBEDDING_MATCH; None when none
    does or the checkpoint's embeddings cannot be read (only safetensors are read: no pickle is loaded)."""
    shape = _shape(_config(folder))
    if shape is None:
        return None
    candidates = [(name, path) for name, path in _bundled_folders().items()] + _cached_models()
    candidates = [(n, p) for n, p in candidates if Path(p) != folder and _shape(_config(Path(p))) == shape]
    if not candidates:
        return None
    mine = _word_embeddings(folder)
    if mine is None:
        return None
    for name, path in candidates:
        theirs = _word_embeddings(Path(path))
        if theirs is None or theirs.shape != mine.shape:
            continue
        distance = float((mine - theirs).norm() / max(float(theirs.norm()), 1e-12))
        if distance < EMBEDDING_MATCH:
            return path, name, distance
    return None
