"""What the Tag page says, without Qt: which folder is a token-classification checkpoint, the entity types of a
tag set and their colours, the sentence with its entities highlighted, the head's arithmetic for one word piece,
and the sentence shown before anything is typed, and how it was split into words. explorer.ui.inspectors.tag_view
shows it.
"""

from __future__ import annotations

import html

TYPE_COLORS = ("#ffd966", "#9fc5e8", "#b6d7a8", "#ea9999", "#d5a6bd", "#f9cb9c", "#a2c4c9", "#b4a7d6")


def is_tagging_checkpoint(path: str) -> bool:
    """True for a folder whose config.json records a head that opens in the Tag page (explorer.core.specs.heads:
    ...ForTokenClassification, a ner run's checkpoint); reads the JSON only."""
    from explorer.core.specs.heads import recognise
    from explorer.ui.inspectors.registry import TAG_PAGE

    head = recognise(path)
    return head is not None and TAG_PAGE in head.pages


def type_color(entity_type: str, types: list[str]) -> str:
    """The highlight colour of an entity type (by its place among the head's types)."""
    k = types.index(entity_type) if entity_type in types else len(types)
    return TYPE_COLORS[k % len(TYPE_COLORS)]


def entity_types(tag_names: list[str]) -> list[str]:
    """The entity types of a tag set, in order (B-LOC, I-LOC, B-PER -> LOC, PER)."""
    return list(dict.fromkeys(t[2:] for t in tag_names if t != "O" and len(t) > 2))


def highlighted_html(text: str, entities, tag_names: list[str]) -> str:
    """``text`` as HTML with every entity (character offsets) on its type's colour, the type after it."""
    types = entity_types(tag_names)
    out, pos = [], 0
    for e in sorted(entities, key=lambda e: e.start):
        if e.start < pos or e.start < 0:
            continue
        out.append(html.escape(text[pos:e.start]))
        out.append(f'<span style="background:{type_color(e.type, types)}">{html.escape(text[e.start:e.end])}'
                   f'<sub> {html.escape(e.type)}</sub></span>')
        pos = e.end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def head_lines(head, digits: int = 4, word: tuple[int, str] | None = None) -> list[str]:
    """The text panel for one piece: shapes, logits_k = T_i . W_k + b_k, softmax, the by-hand check. ``word``:
    (its number from 1, as the map's rows count, the word) whose first piece ``head`` is, said on the first line."""
    lines = [f"word {word[0]} {word[1]!r}, its first piece:"] if word is not None else []
    lines += [f"piece {head.index} {head.piece!r}:  logits_i = T_i Wᵀ + b",
             f"(T_i: {head.T.shape[0]}; W: {head.W.shape[0]} x {head.W.shape[1]}; b: {head.b.shape[0]})", ""]
    width = max([len(n) for n in head.tag_names] + [3])
    cols = digits + 4   # a signed number and one space: sign, a digit, the point (wider ones push the row)
    lines.append(f"{'tag':>{width}} {'T_i·W_k':>{cols}} {'+ b_k':>{cols}} {'= logit':>{cols}} {'model':>{cols}}"
                 f" {'P':>{cols - 2}}")
    for k, name in enumerate(head.tag_names):
        dot = float(head.T @ head.W[k])
        lines.append(f"{name:>{width}} {dot:+{cols}.{digits}f} {head.b[k]:+{cols}.{digits}f} "
                     f"{head.by_hand[k]:+{cols}.{digits}f} {head.model_logits[k]:+{cols}.{digits}f} "
                     f"{head.probabilities[k]:{cols - 2}.{digits}f}")
    lines += ["", f"P = softmax(logits_i) over the {len(head.tag_names)} tags",
              f"prediction: {head.tag_names[int(head.probabilities.argmax())]}",
              f"by-hand check: max |logit - model| = {head.max_abs_diff:.1e}"]
    return lines

DEFAULT_SENTENCE = "EU rejects German call to boycott British lamb ."   # CoNLL-2003's first sentence


def words_note(tagged) -> str:
    """How the sentence was split into the words tagged: the rule the model's training words were formed by
    (recorded with its run; explorer.core.data.words), e.g. "words by the conll rule, as in training"; a model
    that records no rule: "words by the punctuation rule (the model records none: its training words may be
    formed otherwise)", never "as in training"."""
    from explorer.core.data.words import WORD_RULES

    rule = WORD_RULES.get(getattr(tagged, "word_rule", "") or "")
    if rule is None:
        return ""
    if not getattr(tagged, "word_rule_recorded", True):
        return f"words by the {rule.name} rule (the model records none: its training words may be formed otherwise)"
    return f"words by the {rule.name} rule, as in training"
