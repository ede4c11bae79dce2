"""Tiny offline models of every common encoder family, for tests (no network, no downloads).

For each family: a tiny random model of the real architecture (its transformers config class: 2
layers, hidden 32, 4 heads) and a tiny tokenizer of the same *kind* trained here with the
``tokenizers`` library, wrapped as the family's fast tokenizer class and saved with
``save_pretrained`` (safetensors) into a folder that ``load_model(folder)`` reads like any hub
checkpoint.

Tokenizer kinds (what the real checkpoints use):

- ``wordpiece``: BERT normaliser (lower case, accents stripped), BERT pre-tokenizer, WordPiece with
  ``##`` pieces; ``[CLS] q [SEP] p [SEP]`` with token_type_ids (BERT, DistilBERT, ELECTRA).
- ``bytelevel``: byte-level BPE with ``add_prefix_space`` and ``trim_offsets`` (GPT-2 style),
  ``<s> q </s></s> p </s>``, no token_type_ids (RoBERTa). ModernBERT uses the same kind with
  ``[CLS] q [SEP] p [SEP]``.
- ``unigram``: SentencePiece-style Unigram with an NFKC normaliser and the Metaspace pre-tokenizer
  (``▁`` marks a word start); ALBERT / DeBERTa-v3 (``[CLS] q [SEP] p [SEP]``) and XLM-RoBERTa
  (``<s> q </s></s> p </s>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

HIDDEN = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


@dataclass(frozen=True)
class Family:
    """One encoder family: its config class, tokenizer kind and special-token layout."""

    name: str
    config_class: str
    tokenizer_kind: str          # wordpiece | bytelevel | unigram
    roberta_specials: bool       # <s> </s></s> </s> layout instead of [CLS] [SEP] [SEP]
    token_types: bool            # the tokenizer returns token_type_ids


FAMILIES = {
    "bert": Family("bert", "BertConfig", "wordpiece", False, True),
    "roberta": Family("roberta", "RobertaConfig", "bytelevel", True, False),
    "distilbert": Family("distilbert", "DistilBertConfig", "wordpiece", False, False),
    "albert": Family("albert", "AlbertConfig", "unigram", False, True),
    "electra": Family("electra", "ElectraConfig", "wordpiece", False, True),
    "deberta-v2": Family("deberta-v2", "DebertaV2Config", "unigram", False, True),
    "xlm-roberta": Family("xlm-roberta", "XLMRobertaConfig", "unigram", True, False),
    "modernbert": Family("modernbert", "ModernBertConfig", "bytelevel", False, False),
}


# --------------------------------------------------------------------------------------------- tokenizers


def _post_processor(tok: Tokenizer, roberta: bool, token_types: bool):
    if roberta:
        cls, sep = "<s>", "</s>"
        single, pair = f"{cls} $A {sep}", f"{cls} $A {sep} {sep} $B {sep}"
    else:
        cls, sep = "[CLS]", "[SEP]"
        b = ":1" if token_types else ""
        single, pair = f"{cls} $A {sep}", f"{cls} $A {sep} $B{b} {sep}{b}"
    return processors.TemplateProcessing(single=single, pair=pair,
                                         special_tokens=[(cls, tok.token_to_id(cls)), (sep, tok.token_to_id(sep))])


def train_tokenizer(kind: str, texts, *, vocab_size: int = 600, roberta_specials: bool | None = None,
                    token_types: bool = True, normalizer=None) -> Tokenizer:
    """Train a ``tokenizers.Tokenizer`` of one kind on ``texts`` (an iterable of strings).

    Args:
        kind: "wordpiece", "bytelevel" or "unigram".
        roberta_specials: use <s>/</s> special tokens (default: True for bytelevel only).
        token_types: pair template marks the passage with type 1 ([CLS] layouts only).
        normalizer: replace the kind's default normaliser (e.g. to test a length-changing one).
    """
    roberta = (kind == "bytelevel") if roberta_specials is None else roberta_specials
    specials = ROBERTA_SPECIALS if roberta else BERT_SPECIALS
    unk = specials[3] if roberta else "[UNK]"
    texts = list(texts)
    if kind == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token=unk, max_input_chars_per_word=100))
        tok.normalizer = normalizer or normalizers.BertNormalizer(lowercase=True, strip_accents=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    elif kind == "bytelevel":
        tok = Tokenizer(models.BPE())
        if normalizer is not None:
            tok.normalizer = normalizer
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    elif kind == "unigram":
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizer or normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("``", '"')])
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
        trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials, unk_token=unk,
                                          show_progress=False, max_piece_length=12)
    else:
        raise ValueError(f"unknown tokenizer kind {kind!r}")
    tok.train_from_iterator(texts, trainer=trainer)
    if kind == "bytelevel":
        # run_qa-style offsets: no leading-space byte in a token's span (RobertaProcessing trims them).
        tok.post_processor = processors.Sequence([processors.ByteLevel(trim_offsets=True),
                                                  _post_processor(tok, roberta, token_types and not roberta)])
    else:
        tok.post_processor = _post_processor(tok, roberta, token_types and not roberta)
    return tok


# The fast tokenizer class each family's hub checkpoints name in tokenizer_config.json. Loading a saved
# folder goes through that class, which rebuilds parts of the pipeline its own way (RoBERTa: no prefix
# space; ALBERT: lower case; XLM-R / DeBERTa-v3: their Metaspace setup), as for a real checkpoint.
FAMILY_TOKENIZER_CLASS = {"bert": "BertTokenizerFast", "roberta": "RobertaTokenizerFast",
                          "distilbert": "DistilBertTokenizerFast", "albert": "AlbertTokenizerFast",
                          "electra": "ElectraTokenizerFast", "deberta-v2": "DebertaV2TokenizerFast",
                          "xlm-roberta": "XLMRobertaTokenizerFast", "modernbert": "PreTrainedTokenizerFast"}


def wrap_tokenizer(tok: Tokenizer, *, roberta_specials: bool, token_types: bool,
                   class_name: str = "PreTrainedTokenizerFast"):
    """The transformers fast tokenizer ``class_name`` around ``tok`` (special tokens named)."""
    import transformers

    if roberta_specials:
        named = dict(bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>", pad_token="<pad>",
                     unk_token="<unk>", mask_token="<mask>")
    else:
        named = dict(cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]",
                     mask_token="[MASK]")
    if class_name == "PreTrainedTokenizerFast":
        named["model_input_names"] = (["input_ids", "token_type_ids", "attention_mask"] if token_types
                                      else ["input_ids", "attention_mask"])
    return getattr(transformers, class_name)(tokenizer_object=tok, **named)


def family_tokenizer(family: Family, texts, vocab_size: int = 600):
    """A trained fast tokenizer of ``family``'s kind, wrapped as the family's own tokenizer class."""
    tok = train_tokenizer(family.tokenizer_kind, texts, vocab_size=vocab_size,
                          roberta_specials=family.roberta_specials, token_types=family.token_types)
    return wrap_tokenizer(tok, roberta_specials=family.roberta_specials, token_types=family.token_types,
                          class_name=FAMILY_TOKENIZER_CLASS[family.name])


# --------------------------------------------------------------------------------------------- models


def family_config(family: Family, tokenizer, *, num_labels: int = 2):
    """The family's config class, tiny (2 layers, hidden 32, 4 heads), sized to the tokenizer."""
    import transformers

    cls = getattr(transformers, family.config_class)
    ids = dict(pad_token_id=tokenizer.pad_token_id, vocab_size=len(tokenizer), num_labels=num_labels)
    if family.name == "distilbert":
        return cls(dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=128, **ids)
    if family.name == "modernbert":
        return cls(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                   max_position_embeddings=128, cls_token_id=tokenizer.cls_token_id,
                   sep_token_id=tokenizer.sep_token_id, bos_token_id=tokenizer.cls_token_id,
                   eos_token_id=tokenizer.sep_token_id, global_attn_every_n_layers=2, local_attention=16, **ids)
    extra = {}
    if family.name == "albert":
        extra = dict(embedding_size=16, num_hidden_groups=1)
    if family.name == "electra":
        extra = dict(embedding_size=16)
    if family.name == "deberta-v2":  # DeBERTa-v3 layout: relative attention, no absolute positions
        extra = dict(relative_attention=True, position_buckets=32, max_relative_positions=-1,
                     pos_att_type=["p2c", "c2p"], position_biased_input=False, norm_rel_ebd="layer_norm",
                     share_att_key=True, type_vocab_size=0)
    if family.roberta_specials:
        extra["type_vocab_size"] = 1
        # RoBERTa positions start after the padding index
        return cls(max_position_embeddings=130, bos_token_id=tokenizer.cls_token_id,
                   eos_token_id=tokenizer.sep_token_id, **HIDDEN, **extra, **ids)
    return cls(max_position_embeddings=128, **HIDDEN, **extra, **ids)


def build_model(family: Family, tokenizer, task: str = "qa", seed: int = 0, num_labels: int = 2):
    """A tiny random model of the family's architecture with the task head (eval mode)."""
    import torch
    import transformers

    auto = {"qa": transformers.AutoModelForQuestionAnswering,
            "classification": transformers.AutoModelForSequenceClassification,
            "masked_lm": transformers.AutoModelForMaskedLM}[task]
    torch.manual_seed(seed)
    config = family_config(family, tokenizer, num_labels=num_labels)
    return auto.from_config(config).eval()


def save_family(folder: str | Path, family: Family, tokenizer, task: str = "qa", seed: int = 0) -> Path:
    """Build and save (safetensors) a tiny model + tokenizer of ``family`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    build_model(family, tokenizer, task=task, seed=seed).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
