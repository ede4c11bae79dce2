"""Public fine-tuned QA checkpoints of every common encoder family, with the dev figures their model
cards report: one table that the launcher and the inspectors read (no torch, no Qt).

They load like any hub id (explorer.core.models.loading.load_model); offline, a hub id that is not cached gets
the usual clear message. The figures are what each model card states (its model-index / "Performance"
section), on the data named in ``evaluated_on``; they are shown as a reference, not re-measured here.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.specs.tasks import get_task_facts


@dataclass(frozen=True)
class HubPreset:
    """One fine-tuned QA checkpoint on the Hugging Face hub.

    Attributes:
        hub_id: the repository id.
        family: the encoder family, as users name it ("RoBERTa").
        model_type: transformers' ``config.model_type`` ("roberta").
        task: the training task it matches: "squad_v2" or "squad_v1".
        exact_match, f1: the dev figures of its model card (percent); None when the card gives none.
        evaluated_on: which data those figures are on.
        card: the model card's address.
    """

    hub_id: str
    family: str
    model_type: str
    task: str
    exact_match: float | None
    f1: float | None
    evaluated_on: str
    card: str

    @property
    def label(self) -> str:
        """Short menu text: id and family."""
        return f"{self.hub_id} ({self.family})"

    def tooltip(self) -> str:
        """The model card's figure, in one line (what the UI shows on hover)."""
        figures = []
        if self.exact_match is not None:
            figures.append(f"exact_match {self.exact_match:.2f}")
        if self.f1 is not None:
            figures.append(f"f1 {self.f1:.2f}")
        version = "SQuAD 2.0" if get_task_facts(self.task).has_no_answer else "SQuAD v1.1"
        shown = ", ".join(figures) if figures else "no figure given"
        return (f"{self.family} fine-tuned on {version}. Model card: {shown} on {self.evaluated_on}. "
                f"{self.card}")


_V2_DEV = "the SQuAD 2.0 dev set (11,873 questions)"

QA_PRESETS: tuple[HubPreset, ...] = (
    HubPreset("deepset/bert-base-uncased-squad2", "BERT", "bert", "squad_v2", 75.65, 78.62, _V2_DEV,
              "https://huggingface.co/deepset/bert-base-uncased-squad2"),
    HubPreset("deepset/roberta-base-squad2", "RoBERTa", "roberta", "squad_v2", 79.93, 82.95, _V2_DEV,
              "https://huggingface.co/deepset/roberta-base-squad2"),
    HubPreset("distilbert/distilbert-base-cased-distilled-squad", "DistilBERT", "distilbert", "squad_v1",
              None, 87.1, "the SQuAD v1.1 dev set",
              "https://huggingface.co/distilbert/distilbert-base-cased-distilled-squad"),
    HubPreset("twmkn9/albert-base-v2-squad2", "ALBERT", "albert", "squad_v2", 78.71, 81.89,
              "a 6,078-question subset of the SQuAD 2.0 dev set",
              "https://huggingface.co/twmkn9/albert-base-v2-squad2"),
    HubPreset("deepset/electra-base-squad2", "ELECTRA", "electra", "squad_v2", 77.61, 81.72, _V2_DEV,
              "https://huggingface.co/deepset/electra-base-squad2"),
    HubPreset("deepset/deberta-v3-base-squad2", "DeBERTa-v3", "deberta-v2", "squad_v2", 83.82, 87.41, _V2_DEV,
              "https://huggingface.co/deepset/deberta-v3-base-squad2"),
    HubPreset("deepset/xlm-roberta-base-squad2", "XLM-RoBERTa", "xlm-roberta", "squad_v2", 74.04, 77.18, _V2_DEV,
              "https://huggingface.co/deepset/xlm-roberta-base-squad2"),
    HubPreset("kiddothe2b/ModernBERT-base-squad2", "ModernBERT", "modernbert", "squad_v2", 81.29, 84.48,
              "the SQuAD 2.0 dev set (self-reported)", "https://huggingface.co/kiddothe2b/ModernBERT-base-squad2"),
)


def preset_for(hub_id: str) -> HubPreset | None:
    """The preset with this hub id (case-insensitive), or None."""
    key = (hub_id or "").strip().lower()
    return next((p for p in QA_PRESETS if p.hub_id.lower() == key), None)
