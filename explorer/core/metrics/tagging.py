"""Token-tagging (NER) metrics: entity-level precision / recall / F1 overall and per type, and token
accuracy.

Entity scores are seqeval's (``seqeval.metrics``, mode="strict", scheme=IOB2): an entity counts as right
only when its type and both its boundaries match a gold entity, as in the CoNLL-2003 ``conlleval`` script
(Tjong Kim Sang and De Meulder 2003). F1 = 2PR / (P + R), micro-averaged over entities. On well-formed IOB2
sequences strict mode and conlleval agree; they differ only on an ill-formed *predicted* I-X that follows O
or another type: conlleval (and seqeval's default mode) read it as the start of an entity, strict mode does
not count it as an entity at all. Gold files are converted to well-formed IOB2 when read
(explorer.core.data.conll).
Token accuracy = right tags / words (every word, O included).
"""

from __future__ import annotations


from collections import Counter


def tagging_metrics(gold: list[list[str]], pred: list[list[str]]) -> dict:
    """Metrics of predicted IOB2 tag sequences against gold ones (same lengths).

    Returns:
        {"f1", "precision", "recall" (0..1, entity level, micro), "token_accuracy" (0..1),
         "per_type": {type: {"precision", "recall", "f1", "support"}}, "entities": gold entity count,
         "predicted_tags": {tag: words predicted with it} (a tagger predicting "O" for every word has one key)}.
    """
    from seqeval.metrics import (
        classification_report,
        f1_score,
        precision_score,
        recall_score,
    )
    from seqeval.scheme import IOB2

    kw = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    words = sum(len(g) for g in gold)
    right = sum(a == b for g, p in zip(gold, pred) for a, b in zip(g, p))
    out = {"f1": float(f1_score(gold, pred, **kw)), "precision": float(precision_score(gold, pred, **kw)),
           "recall": float(recall_score(gold, pred, **kw)),
           "token_accuracy": float(right / words) if words else 0.0}
    report = classification_report(gold, pred, output_dict=True, **kw) if words else {}
    out["per_type"] = {t: {"precision": float(r["precision"]), "recall": float(r["recall"]),
                           "f1": float(r["f1-score"]), "support": int(r["support"])}
                       for t, r in report.items() if not t.endswith(" avg")}
    out["entities"] = int(sum(r["support"] for r in out["per_type"].values()))
    out["predicted_tags"] = dict(Counter(t for p in pred for t in p))
    return out
