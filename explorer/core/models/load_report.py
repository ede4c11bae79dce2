"""What loading a checkpoint actually did: which weights came from the file and which were made up.

``transformers``' ``from_pretrained(..., output_loading_info=True)`` returns the lists this module
reads (``missing_keys``: parameters the checkpoint did not have, so they were newly initialised;
``unexpected_keys``: tensors in the file the model has no place for; ``mismatched_keys``: names that
matched with the wrong shape, also re-initialised). A checkpoint whose encoder keys sit under another
prefix loads only its head and leaves a *random encoder* behind; this report says so instead of
calling the model "fine-tuned".
"""

from __future__ import annotations

from dataclasses import dataclass, field

HEAD_PREFIXES = ("qa_outputs", "classifier", "score")
KIND_FINE_TUNED = "fine-tuned"
KIND_NEW_HEAD = "pre-trained encoder, new head"
KIND_RANDOM = "random encoder"
KIND_PARTLY_RANDOM = "partly random encoder"


def is_head_key(name: str, encoder_prefix: str = "") -> bool:
    """True for task-head parameters and the pooler, which only the classification head reads.

    With ``encoder_prefix`` (the model class's ``base_model_prefix``, e.g. "distilbert"), every parameter
    outside the encoder is head: DistilBERT's ``pre_classifier``, ModernBERT's ``head`` block. Without it,
    the BERT-style names qa_outputs / classifier / score.
    """
    parts = name.split(".")
    if "pooler" in parts:
        return True
    if encoder_prefix:
        return parts[0] != encoder_prefix
    return parts[0] in HEAD_PREFIXES


@dataclass
class LoadReport:
    """Weights newly initialised, missing, ignored or mismatched when a model was loaded.

    Attributes:
        newly_initialised: parameter names given fresh random values (missing + mismatched), sorted.
        missing: parameter names the checkpoint did not hold.
        unexpected: tensor names in the checkpoint the model ignored.
        mismatched: "name (checkpoint shape -> model shape)" for names loaded with another shape.
        n_expected: tensors the model expects (its state_dict size).
        n_encoder_expected: of those, the ones outside the task head and pooler.
    """

    newly_initialised: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    n_expected: int = 0
    n_encoder_expected: int = 0
    encoder_prefix: str = ""

    @classmethod
    def from_loading_info(cls, info: dict, expected: list[str], encoder_prefix: str = "") -> "LoadReport":
        """Build from transformers' loading info dict (missing_keys, unexpected_keys, mismatched_keys) and
        the names the model expects (``list(model.state_dict())``); ``encoder_prefix``: the model's
        ``base_model_prefix`` when every expected name outside it is head (see :func:`is_head_key`)."""
        if encoder_prefix and not any(k.startswith(encoder_prefix + ".") for k in expected):
            encoder_prefix = ""  # a bare encoder's names carry no prefix
        missing = sorted(str(k) for k in info.get("missing_keys") or [])
        unexpected = sorted(str(k) for k in info.get("unexpected_keys") or [])
        mismatched, mismatched_names = [], []
        for item in info.get("mismatched_keys") or []:
            if isinstance(item, (tuple, list)) and len(item) >= 3:
                name = str(item[0])
                mismatched.append(f"{name} ({tuple(item[1])} -> {tuple(item[2])})")
            else:
                name = str(item[0] if isinstance(item, (tuple, list)) else item)
                mismatched.append(name)
            mismatched_names.append(name)
        newly = sorted(set(missing) | set(mismatched_names))
        return cls(newly_initialised=newly, missing=missing, unexpected=unexpected, mismatched=mismatched,
                   n_expected=len(expected), encoder_prefix=encoder_prefix,
                   n_encoder_expected=sum(not is_head_key(k, encoder_prefix) for k in expected))

    @classmethod
    def random(cls, names: list[str]) -> "LoadReport":
        """A model built from a config alone: every weight newly initialised."""
        names = sorted(names)
        return cls(newly_initialised=names, missing=list(names), n_expected=len(names),
                   n_encoder_expected=sum(not is_head_key(k) for k in names))

    @property
    def encoder_missing(self) -> list[str]:
        """Newly initialised weights outside the task head and pooler."""
        return [k for k in self.newly_initialised if not is_head_key(k, self.encoder_prefix)]

    @property
    def encoder_loaded(self) -> bool:
        """True when every encoder weight (embeddings and layers) came from the checkpoint."""
        return not self.encoder_missing

    @property
    def head_initialised(self) -> bool:
        """True when any head (or pooler) weight was newly initialised."""
        return any(is_head_key(k, self.encoder_prefix) for k in self.newly_initialised)

    @property
    def kind(self) -> str:
        """"fine-tuned", "pre-trained encoder, new head", "random encoder" or "partly random encoder"."""
        if not self.encoder_loaded:
            enc_missing = len(self.encoder_missing)
            return KIND_RANDOM if enc_missing >= self.n_encoder_expected else KIND_PARTLY_RANDOM
        return KIND_NEW_HEAD if self.head_initialised else KIND_FINE_TUNED

    @property
    def ok(self) -> bool:
        """Nothing newly initialised and nothing ignored."""
        return not (self.newly_initialised or self.unexpected)

    def summary(self) -> str:
        """One line, e.g. "37 of 39 weights not in the checkpoint, first: bert.embeddings.LayerNorm.bias;
        37 checkpoint tensors ignored, first: encoder_model.embeddings.LayerNorm.bias"."""
        if self.ok:
            return f"all {self.n_expected} weights loaded from the checkpoint"
        parts = []
        if self.newly_initialised:
            n = len(self.newly_initialised)
            parts.append(f"{n} of {self.n_expected} weights not in the checkpoint (newly initialised), "
                         f"first: {self.newly_initialised[0]}")
        if self.mismatched:
            parts.append(f"{len(self.mismatched)} with another shape, first: {self.mismatched[0]}")
        if self.unexpected:
            parts.append(f"{len(self.unexpected)} checkpoint tensors ignored, first: {self.unexpected[0]}")
        return "; ".join(parts)

    def warning(self) -> str | None:
        """A warning line when the encoder did not (fully) load, else None."""
        if self.encoder_loaded:
            return None
        return (f"the encoder did not load ({self.kind}): {self.summary()}. Its answers and scores mean "
                "nothing; check that the checkpoint's weight names match the model (e.g. a 'bert.' prefix).")

    def to_dict(self, limit: int = 20) -> dict:
        """JSON-ready, lists cut to ``limit`` names (for events and --json)."""
        return {"kind": self.kind, "encoder_loaded": self.encoder_loaded, "n_expected": self.n_expected,
                "n_newly_initialised": len(self.newly_initialised), "n_unexpected": len(self.unexpected),
                "newly_initialised": self.newly_initialised[:limit], "missing": self.missing[:limit],
                "unexpected": self.unexpected[:limit], "mismatched": self.mismatched[:limit],
                "summary": self.summary()}
