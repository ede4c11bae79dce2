"""Window settings checked against the model and tokenizer before any work.

A window is ``[CLS] question [SEP] passage-piece [SEP]`` (features.py). Its settings must fit the model:

- ``max_seq_length`` <= the model's position embeddings (``config.max_position_embeddings``; RoBERTa-style
  models lose ``pad_token_id + 1`` of them to their position offset): a longer window indexes past the
  position table and fails deep inside the forward ("index out of range").
- ``max_seq_length`` <= the tokenizer's ``model_max_length`` (when it states a real one).
- the question (at most ``max_query_length`` tokens) and the special tokens leave room for the passage.
- ``doc_stride`` (the overlap in tokens between consecutive windows, tokenizers' ``stride``) is smaller
  than that passage room, or the windows would never advance.

:func:`check_window_settings` returns every problem; :func:`require_window_settings` raises one
:class:`WindowSettingsError` naming the numbers ("max_seq_length 1024 > 512 position embeddings of
bundled:minilm"). The CLI (`train`, `eval`, `probe`), the launcher and the probe panel all call these.
Problems come in two severities: "error" (no question could work) and "warning" (a question as long as
``max_query_length`` would not fit; shorter ones do, so training/eval still run and fail with the data's
own numbers only if such a question occurs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import UserError

ROBERTA_LIKE = ("roberta", "xlm-roberta", "camembert", "longformer", "bart", "mbart", "xlm-roberta-xl")
NO_LIMIT = 10 ** 8  # tokenizers state ~1e30 when they have no maximum
MAX_SEQ_LENGTH_HELP = ("tokens per window, special tokens included; at most the model's position embeddings "
                       "(default: %(default)s)")
DOC_STRIDE_HELP = ("overlap in tokens between consecutive windows of a long passage (tokenizers' stride); must be "
                   "smaller than the passage room max_seq_length - question tokens - special tokens "
                   "(default: %(default)s)")
MAX_QUERY_LENGTH_HELP = "questions are cut to this many tokens before windowing (default: %(default)s)"


class WindowSettingsError(UserError):
    """Window settings that cannot work with this model; ``problems`` lists each."""

    def __init__(self, problems: list["WindowSettingProblem"]):
        self.problems = list(problems)
        super().__init__("; ".join(p.message for p in self.problems))


@dataclass
class WindowSettingProblem:
    """One setting that does not fit. setting: "max_seq_length" | "doc_stride" | "max_query_length";
    value: the setting's value; limit: the bound it broke; severity: "error" | "warning"."""

    setting: str
    value: int
    limit: int
    message: str
    severity: str = "error"


@dataclass
class WindowLimits:
    """What a model allows: max_positions (usable position embeddings, None unknown), tokenizer_max_length
    (None when the tokenizer states none), n_special (special tokens of a question/passage pair), name."""

    max_positions: int | None = None
    tokenizer_max_length: int | None = None
    n_special: int = 3
    name: str = "the model"


def usable_positions(model_config) -> int | None:
    """The position embeddings a model can use for tokens (config ``max_position_embeddings``, less the
    padding offset of RoBERTa-style families, whose positions start at ``pad_token_id + 1``); None when the
    config states none."""
    mpe = getattr(model_config, "max_position_embeddings", None)
    if not isinstance(mpe, int) or mpe <= 0:
        return None
    if getattr(model_config, "model_type", "") in ROBERTA_LIKE:  # positions start at pad_token_id + 1
        mpe -= int(getattr(model_config, "pad_token_id", 1) or 1) + 1
    return mpe


def _tokenizer_max(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and 0 < value < NO_LIMIT else None


def window_limits(tokenizer=None, model_config=None, name: str = "the model") -> WindowLimits:
    """WindowLimits of a loaded tokenizer and model config (either may be None = unknown)."""
    n_special = 3
    if tokenizer is not None and hasattr(tokenizer, "num_special_tokens_to_add"):
        n_special = int(tokenizer.num_special_tokens_to_add(pair=True))
    return WindowLimits(max_positions=usable_positions(model_config) if model_config is not None else None,
                        tokenizer_max_length=_tokenizer_max(getattr(tokenizer, "model_max_length", None)),
                        n_special=n_special, name=name)


def folder_limits(folder: str | Path, name: str = "") -> WindowLimits | None:
    """WindowLimits read from a model folder's config.json / tokenizer_config.json (no transformers import,
    cheap enough for a GUI field check); None when the folder has no readable config.json."""
    folder = Path(folder)
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(cfg, dict):
        return None
    tok_max = None
    try:
        tok = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        tok_max = _tokenizer_max(tok.get("model_max_length")) if isinstance(tok, dict) else None
    except (OSError, ValueError):
        pass
    model_type = str(cfg.get("model_type", ""))

    class _Cfg:  # the two attributes _positions reads
        max_position_embeddings = cfg.get("max_position_embeddings")
        pad_token_id = cfg.get("pad_token_id", 1)

    _Cfg.model_type = model_type
    return WindowLimits(max_positions=usable_positions(_Cfg), tokenizer_max_length=tok_max,
                        n_special=4 if model_type in ROBERTA_LIKE else 3, name=name or str(folder))


def check_limits(limits: WindowLimits, max_seq_length: int, doc_stride: int | None = None,
                 max_query_length: int | None = None, *, question_tokens: int | None = None
                 ) -> list[WindowSettingProblem]:
    """Every problem of these settings under ``limits`` (empty list = fine).

    Args:
        max_seq_length: tokens per window, special tokens included.
        doc_stride: overlap in tokens between windows (None for tasks without windows, e.g. classification).
        max_query_length: questions are cut to this many tokens (None: no question, classification).
        question_tokens: the longest actual question in tokens, when known (a probe's question, a data
            file); then room problems are errors for that length. Unknown: errors only when even a
            one-token question cannot fit, warnings when a max_query_length-long one cannot.
    """
    out: list[WindowSettingProblem] = []
    name = limits.name
    for setting, value, low in (("max_seq_length", max_seq_length, limits.n_special + 2),
                                ("doc_stride", doc_stride, 0), ("max_query_length", max_query_length, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            out.append(WindowSettingProblem(setting, value, low, f"{setting} {value!r} must be an integer >= {low}"))
    if out:
        return out
    over_positions = limits.max_positions is not None and max_seq_length > limits.max_positions
    if over_positions:
        same = " (its tokenizer's model_max_length is the same)" \
            if limits.tokenizer_max_length == limits.max_positions else ""
        out.append(WindowSettingProblem(
            "max_seq_length", max_seq_length, limits.max_positions,
            f"max_seq_length {max_seq_length} > {limits.max_positions} position embeddings of {name}{same}"))
    if (limits.tokenizer_max_length is not None and max_seq_length > limits.tokenizer_max_length
            and not (over_positions and limits.tokenizer_max_length == limits.max_positions)):   # said once
        out.append(WindowSettingProblem(
            "max_seq_length", max_seq_length, limits.tokenizer_max_length,
            f"max_seq_length {max_seq_length} > the tokenizer's model_max_length {limits.tokenizer_max_length} "
            f"({name})"))
    if doc_stride is None:
        return out
    out += _room_problems(limits, max_seq_length, doc_stride, max_query_length or 1, question_tokens)
    return out


def _room_problems(limits: WindowLimits, max_seq_length: int, doc_stride: int, max_query_length: int,
                   question_tokens: int | None) -> list[WindowSettingProblem]:
    """Passage room = max_seq_length - question tokens - special tokens; it must exceed doc_stride."""
    if question_tokens is not None:
        cases = [(min(question_tokens, max_query_length), "error",
                  f"the longest question has {min(question_tokens, max_query_length)} tokens")]
    else:
        cases = [(1, "error", "even a 1-token question"),
                 (max_query_length, "warning", f"a question of max_query_length {max_query_length} tokens")]
    for q, severity, who in cases:
        room = max_seq_length - q - limits.n_special
        parts = f"max_seq_length {max_seq_length} - {q} question tokens - {limits.n_special} special tokens"
        if room < 1:
            fix = "raise max_seq_length or lower max_query_length"
            return [WindowSettingProblem("max_query_length" if q > 1 else "max_seq_length",
                                         max_query_length if q > 1 else max_seq_length, max_seq_length,
                                         f"no room for the passage with {who}: {parts} = {room}; {fix}", severity)]
        if doc_stride >= room:
            return [WindowSettingProblem(
                "doc_stride", doc_stride, room,
                f"doc_stride (overlap) {doc_stride} must be smaller than the passage room {room} with {who} "
                f"({parts}); lower doc_stride or max_query_length, or raise max_seq_length", severity)]
    return []


def check_window_settings(tokenizer, model_config, max_seq_length: int, doc_stride: int | None = None,
                          max_query_length: int | None = None, *, question_tokens: int | None = None,
                          name: str = "the model") -> list[WindowSettingProblem]:
    """:func:`check_limits` for a loaded tokenizer and model config (see the module docstring)."""
    return check_limits(window_limits(tokenizer, model_config, name), max_seq_length, doc_stride,
                        max_query_length, question_tokens=question_tokens)


def require_window_settings(tokenizer, model_config, max_seq_length: int, doc_stride: int | None = None,
                            max_query_length: int | None = None, *, question_tokens: int | None = None,
                            name: str = "the model") -> list[WindowSettingProblem]:
    """Raise :class:`WindowSettingsError` when any problem is an error; returns the warnings."""
    problems = check_window_settings(tokenizer, model_config, max_seq_length, doc_stride, max_query_length,
                                     question_tokens=question_tokens, name=name)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise WindowSettingsError(errors)
    return problems


def longest_question_tokens(tokenizer, questions, max_query_length: int) -> int:
    """Tokens of the longest question after cutting to max_query_length (0 for no questions); questions are
    counted whole, never fed to the model as they are, so transformers' "Token indices sequence length is longer
    than the specified maximum" warning is kept out (``verbose=False``)."""
    questions = [q.lstrip() for q in questions]
    if not questions:
        return 0
    longest = 0
    for lo in range(0, len(questions), 1000):
        enc = tokenizer(questions[lo:lo + 1000], add_special_tokens=False, verbose=False)["input_ids"]
        longest = max(longest, max(len(ids) for ids in enc))
        if longest >= max_query_length:
            return max_query_length
    return longest


def source_limits(source: str) -> WindowLimits | None:
    """WindowLimits of a model source (local folder, ``bundled:...``, or a hub id already in the local
    cache) read from its JSON files, without loading the model; None when they cannot be read (the model
    load itself then reports the problem)."""
    from explorer.core.models.sources import local_folder

    folder = local_folder(source)
    if folder is None:
        return None
    return folder_limits(folder, name=source)


def check_source_settings(source: str, max_seq_length: int, doc_stride: int | None = None,
                          max_query_length: int | None = None) -> list[WindowSettingProblem]:
    """:func:`check_limits` for a model source string (see :func:`source_limits`); [] when unknown."""
    limits = source_limits(source)
    if limits is None:
        return []
    return check_limits(limits, max_seq_length, doc_stride, max_query_length)
