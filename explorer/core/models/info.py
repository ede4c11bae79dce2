"""What the GUI knows about a model that lives in the inspector child process (no torch, no Qt).

The inspector child (explorer/worker/inspector.py) loads models and answers with a :class:`ModelInfo`: the
facts the views render (source, task, the load report and head note, the one-line description) and
what the probe panel checks window settings against (:class:`~explorer.core.models.window_settings.WindowLimits`
and the tokenizer's ``tokenizer.json``, read here with the ``tokenizers`` library to count question
tokens, which imports no torch). ``slot`` names the model inside the child ("qa", "classify", ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from explorer.core.models.load_report import LoadReport
from explorer.core.models.window_settings import WindowLimits, check_limits, window_limits


@dataclass
class ModelInfo:
    """A model held by the inspector child, as the GUI sees it.

    Attributes:
        slot: the child's name for it; requests name the slot. source, path, task, head_initialised,
        load_report, head_note: as on :class:`~explorer.core.models.loading.LoadedModel`. description: its
        ``describe()`` line. limits: window limits of its tokenizer and config. model_type, num_layers,
        num_heads, hidden_size: from its config. tokenizer_json: the fast tokenizer's ``tokenizer.json``
        ("" when it has none); num_labels: the head's outputs. head_problem: what a sequence-classification
        head does ("classification", "regression" or "multilabel", its HeadSpec's ``problem``:
        explorer.core.specs.heads.recognise of the checkpoint's config), "" for other heads; label_names: its
        id2label names in id order. tokenizer_note: where the tokenizer comes from when the checkpoint has none
        ("tokenizer from bundled:minilm: the checkpoint has none ..."), else "".
    """

    slot: str
    source: str
    path: str
    task: str
    head_initialised: bool | None
    description: str
    limits: WindowLimits
    load_report: LoadReport | None = None
    head_note: str = ""
    model_type: str = ""
    num_layers: int = 0
    num_heads: int = 0
    hidden_size: int = 0
    num_labels: int = 0
    head_problem: str = ""
    label_names: list[str] = field(default_factory=list)
    tokenizer_note: str = ""
    tokenizer_json: str = field(default="", repr=False)

    def describe(self) -> str:
        """The LoadedModel.describe() line of the model in the child."""
        return self.description

    def question_tokens(self, question: str, max_query_length: int) -> int | None:
        """Tokens of ``question`` cut to max_query_length (as longest_question_tokens counts them); None when
        the tokenizer is unknown here."""
        tok = self._tokenizer()
        if tok is None:
            return None
        n = len(tok.encode(question.lstrip(), add_special_tokens=False).ids)
        return min(n, max_query_length)

    def check_windows(self, max_seq_length: int, doc_stride: int | None, max_query_length: int | None,
                      question: str = "") -> list:
        """check_window_settings for this model without the model: WindowSettingProblem list."""
        qt = self.question_tokens(question, max_query_length or 64) if question.strip() else None
        return check_limits(self.limits, max_seq_length, doc_stride, max_query_length, question_tokens=qt)

    def _tokenizer(self):
        return _tokenizer_from_json(self.tokenizer_json) if self.tokenizer_json else None


@lru_cache(maxsize=4)
def _tokenizer_from_json(text: str):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(text)
    tok.no_truncation()
    tok.no_padding()
    return tok


def model_info(loaded, slot: str, source: str | None = None) -> ModelInfo:
    """The ModelInfo of a LoadedModel (runs where the model is; ``source`` overrides the shown source)."""
    cfg = getattr(loaded.model, "config", None)
    source = source or loaded.source
    backend = getattr(loaded.tokenizer, "backend_tokenizer", None)
    description = loaded.describe()
    if source != loaded.source and description.startswith(f"{loaded.source}:"):
        description = source + description[len(loaded.source):]
    return ModelInfo(
        slot=slot, source=source, path=str(getattr(loaded, "path", "") or ""), task=loaded.task,
        head_initialised=loaded.head_initialised, description=description,
        limits=window_limits(loaded.tokenizer, cfg, source), load_report=getattr(loaded, "load_report", None),
        head_note=getattr(loaded, "head_note", "") or "", model_type=str(getattr(cfg, "model_type", "")),
        num_layers=int(getattr(cfg, "num_hidden_layers", 0) or 0),
        num_heads=int(getattr(cfg, "num_attention_heads", 0) or 0),
        hidden_size=int(getattr(cfg, "hidden_size", 0) or 0), num_labels=int(getattr(cfg, "num_labels", 0) or 0),
        head_problem=_head_problem(loaded.model, cfg), label_names=_label_names(cfg),
        tokenizer_note=getattr(loaded, "tokenizer_note", "") or "",
        tokenizer_json=backend.to_str() if backend is not None else "")


def _head_problem(model, cfg) -> str:
    """The ``problem`` of the head the loaded model's checkpoint records (explorer.core.specs.heads.recognise of
    its config: architectures, problem_type, id2label); "" for heads other than sequence classification, and for
    a checkpoint that records another head."""
    from explorer.core.specs.heads import recognise

    loaded_as = recognise(model)     # the model's own class
    if cfg is None or loaded_as is None or not loaded_as.problem:
        return ""
    arch = list(getattr(cfg, "architectures", None) or []) or [type(model).__name__]
    view = {"architectures": arch, "problem_type": getattr(cfg, "problem_type", None),
            "id2label": dict(getattr(cfg, "id2label", None) or {})}
    recorded = recognise(view)
    return recorded.problem if recorded is not None else ""


def _label_names(cfg) -> list[str]:
    """The head's output names (core.specs.heads.output_names: a regression head's one output is "score")."""
    from explorer.core.specs.heads import output_names

    return output_names(cfg) if cfg is not None else []


def model_name(info) -> str:
    """How a result view names the model that produced its results: the source the user opened, plus the
    folder it was read from when that is another path ("bundled:minilm",
    "runs/x/checkpoints/best"). ``info``: a ModelInfo or a LoadedModel; None gives ""."""
    if info is None:
        return ""
    source = str(getattr(info, "source", "") or "")
    path = str(getattr(info, "path", "") or "")
    if path and path != source and not source.endswith(path):
        return f"{source} (file {path})" if source else path
    return source or path or "an unnamed model"


def stale_results_note(was: str, now: str) -> str:
    """The one line a result view shows in place of results of another model."""
    return f"Results were for {was}; the model changed to {now or 'none'}: run again."
