"""Vectors collected from a model (Qt-free; torch imported inside the functions that run a model).

- :func:`load_encoder`: the model to embed with (a checkpoint keeps its own head, so a fine-tuned classifier keeps
  its trained pooler).
- :func:`embed_occurrences`: each occurrence of a word at every layer: the mean of the hidden states of the
  word's pieces (located with the fast tokenizer's offset mapping); layer 0 is the embedding layer's output
  (``hidden_states[0]`` of transformers), layer L the L-th encoder layer.
- :func:`embed_sentences`: one vector per text: [CLS] (``cls``), the pooler output (``pooler``) or the
  attention-masked mean of all tokens (``mean``).
- :func:`static_embedding`: the word's row(s) of the input embedding matrix (one point per vocabulary item;
  the mean of its pieces' rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from explorer.core.embeddings.occurrences import Occurrence
from explorer.core.errors import Cancelled, EmbeddingError

Progress = Callable[[int, int], None]
POOLINGS = ("cls", "pooler", "mean")


def load_encoder(source: str, tokenizer: str | None = None):
    """Load a model to embed with: a checkpoint with its own head (so a fine-tuned classifier keeps its trained
    pooler), anything else (a bare encoder, a pre-training checkpoint, a hub id) with a classification head
    (unused; its pooler loads when the checkpoint has one); ``tokenizer``: as load_model's. Returns
    core.models.loading.LoadedModel.

    Raises:
        ModelSourceError: see core.models.loading.load_model."""
    from explorer.core.models.loading import load_model
    from explorer.core.models.sources import resolve_source
    from explorer.core.specs.heads import SINGLE_LABEL, recognise

    try:
        head = recognise(resolve_source(source))
    except Exception:   # noqa: BLE001 - load_model names a bad source
        head = None
    return load_model(source, (head or SINGLE_LABEL).model_head, tokenizer=tokenizer)


def has_trained_classifier(loaded) -> bool:
    """True for a sequence-classification model whose head came from its checkpoint (a fine-tuned
    classifier): its predictions are worth a colour column."""
    from explorer.core.specs.heads import Inputs, for_model_head

    head = for_model_head(getattr(loaded, "task", ""))
    return head is not None and head.inputs is Inputs.TEXT and not getattr(loaded, "head_initialised", True)


def pooler_untrained(loaded) -> bool:
    """True when the model's pooler weights were not in its checkpoint (newly initialised: random)."""
    return any(".pooler." in f".{k}" for k in (getattr(loaded, "missing_keys", None) or []))


def encoder_of(model):
    """The bare encoder of a model with a task head (``model.base_model``), or the model itself."""
    return getattr(model, "base_model", model)


@dataclass
class OccurrenceInputs:
    """The model inputs of occurrences: ``inputs`` (token ids with special tokens, one list per distinct
    input), and per occurrence kept the input it is in and its piece positions there. ``dropped``: the
    occurrences no piece covers (left out); ``windowed``: occurrences in a text longer than the model's
    inputs, embedded in a window of ``max_seq_length`` tokens centred on the word."""

    inputs: list[list[int]]
    input_of: list[int]
    pieces: list[list[int]]
    kept: list[int]
    dropped: int = 0
    windowed: int = 0


def occurrence_inputs(tokenizer, texts: list[str], occurrences: list[Occurrence], *,
                      max_seq_length: int = 512) -> OccurrenceInputs:
    """Tokenize each text once (fast tokenizer, offset mapping) and find each occurrence's pieces: the pieces
    whose characters overlap the occurrence's. Occurrences in one text share its input unless the text is
    longer than ``max_seq_length`` tokens; then each gets the window centred on its pieces.

    Raises:
        EmbeddingError: a tokenizer without offset mappings (a slow tokenizer)."""
    if not getattr(tokenizer, "is_fast", False):
        raise EmbeddingError("the model's tokenizer is not a fast tokenizer: word pieces cannot be located")
    by_text: dict[int, list[int]] = {}
    for k, occ in enumerate(occurrences):
        by_text.setdefault(occ.text, []).append(k)
    out = OccurrenceInputs([], [], [], [])
    slots: dict[int, tuple[int, list[int]]] = {}
    texts_needed = sorted(by_text)
    encoded = tokenizer([texts[i] for i in texts_needed], return_offsets_mapping=True,
                        return_special_tokens_mask=True, add_special_tokens=True, truncation=False, verbose=False)
    for row, t in enumerate(texts_needed):
        ids = encoded["input_ids"][row]
        offsets = encoded["offset_mapping"][row]
        special = encoded["special_tokens_mask"][row]
        content = [i for i, s in enumerate(special) if not s]
        head = [i for i in range(len(ids)) if special[i] and (not content or i < content[0])]
        tail = [i for i in range(len(ids)) if special[i] and content and i > content[-1]]
        room = max(1, max_seq_length - len(head) - len(tail))
        whole = -1
        for k in by_text[t]:
            occ = occurrences[k]
            pieces = [i for i in content if offsets[i][0] < occ.end and offsets[i][1] > occ.start]
            if not pieces:
                out.dropped += 1
                continue
            if len(ids) <= max_seq_length:
                if whole < 0:
                    whole = len(out.inputs)
                    out.inputs.append(list(ids))
                index, positions = whole, pieces
            else:
                out.windowed += 1
                first = content.index(pieces[0])
                lo = max(0, min(first - (room - len(pieces)) // 2, len(content) - room))
                window = content[lo:lo + room]
                key = window[0]
                if key not in slots:
                    slots[key] = (len(out.inputs), window)
                    out.inputs.append([ids[i] for i in head + window + tail])
                index = slots[key][0]
                positions = [len(head) + window.index(i) for i in pieces if i in window]
            out.input_of.append(index)
            out.pieces.append(positions)
            out.kept.append(k)
    return out


def batches(tokenizer, inputs: list[list[int]], batch_size: int) -> list[tuple[list[int], dict]]:
    """The inputs in batches of ``batch_size``, sorted by length (little padding): (input indices, tensors
    ``input_ids`` and ``attention_mask``, right-padded with the tokenizer's pad id)."""
    import torch

    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i]))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out = []
    for s in range(0, len(order), batch_size):
        chunk = order[s:s + batch_size]
        width = max(len(inputs[i]) for i in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for r, i in enumerate(chunk):
            ids[r, :len(inputs[i])] = torch.tensor(inputs[i])
            mask[r, :len(inputs[i])] = 1
        out.append((chunk, {"input_ids": ids, "attention_mask": mask}))
    return out


def check_cancelled(cancelled: Callable[[], bool] | None) -> None:
    """Raise Cancelled when ``cancelled()`` is true (None: never)."""
    if cancelled is not None and cancelled():
        raise Cancelled()


def _device_of(model):
    try:
        return next(model.parameters()).device
    except StopIteration:
        return "cpu"


def embed_occurrences(model, tokenizer, texts: list[str], occurrences: list[Occurrence], *,
                      max_seq_length: int = 512, batch_size: int = 16, progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None) -> tuple[np.ndarray, OccurrenceInputs]:
    """Each occurrence's vector at every layer: the mean over the word's pieces of ``hidden_states[l]``.

    Returns:
        (vectors, inputs): vectors of shape (layers + 1, kept occurrences, hidden), float32, row 0 = the
        embedding layer's output; ``inputs.kept`` says which occurrences they are (an occurrence no piece
        covers is left out).

    ``progress(done, total)`` in occurrences after each batch; ``cancelled()`` true raises Cancelled.
    """
    import torch

    prepared = occurrence_inputs(tokenizer, texts, occurrences, max_seq_length=max_seq_length)
    encoder = encoder_of(model)
    n_layers = encoder.config.num_hidden_layers + 1
    out = np.zeros((n_layers, len(prepared.kept), encoder.config.hidden_size), dtype=np.float32)
    by_input: dict[int, list[int]] = {}
    for j, index in enumerate(prepared.input_of):
        by_input.setdefault(index, []).append(j)
    device = _device_of(encoder)
    done = 0
    with torch.inference_mode():
        for chunk, batch in batches(tokenizer, prepared.inputs, batch_size):
            check_cancelled(cancelled)
            batch = {k: v.to(device) for k, v in batch.items()}
            hidden = encoder(**batch, output_hidden_states=True).hidden_states
            js = [j for index in chunk for j in by_input.get(index, ())]
            if js:
                row_of = {index: r for r, index in enumerate(chunk)}
                width = max(len(prepared.pieces[j]) for j in js)
                rows = torch.tensor([row_of[prepared.input_of[j]] for j in js], device=device)[:, None]
                pos = torch.tensor([prepared.pieces[j] + [0] * (width - len(prepared.pieces[j])) for j in js],
                                   device=device)
                keep = (torch.arange(width, device=device)[None, :]
                        < torch.tensor([len(prepared.pieces[j]) for j in js], device=device)[:, None])
                weight = (keep.float() / keep.sum(1, keepdim=True).float())[:, :, None]
                for layer, h in enumerate(hidden):
                    out[layer, js] = (h.float()[rows, pos] * weight).sum(1).cpu().numpy()
                done += len(js)
            if progress is not None:
                progress(done, len(prepared.kept))
    return out, prepared


def embed_sentences(model, tokenizer, texts: list[str], pooling: str = "cls", *, max_seq_length: int = 128,
                    batch_size: int = 32, progress: Progress | None = None,
                    cancelled: Callable[[], bool] | None = None, predicted: list | None = None) -> np.ndarray:
    """One vector per text.

    Args:
        pooling: "cls" (the [CLS] token's hidden state), "mean" (the mean over the tokens the attention mask
            keeps, special tokens included, as sentence-transformers pools), "pooler" (the model's pooler
            output: tanh(W h_[CLS] + b) of the last layer).
        max_seq_length: longer texts are truncated to this many tokens.
        predicted: a list to fill with each text's predicted class id (argmax of the model's sequence-
            classification logits, from the same forward pass); None = no prediction.

    Returns:
        float32 array (layers + 1, texts, hidden) for cls and mean (every layer, 0 = the embedding layer's
        output), (1, texts, hidden) for pooler.

    Raises:
        EmbeddingError: unknown pooling, or pooler on a model without a pooler.
    """
    import torch

    if pooling not in POOLINGS:
        raise EmbeddingError(f"unknown pooling {pooling!r}; use one of {', '.join(POOLINGS)}")
    encoder = encoder_of(model)
    if pooling == "pooler" and getattr(encoder, "pooler", None) is None:
        raise EmbeddingError("this model has no pooler (its checkpoint was saved without one); use cls or mean")
    encoded = tokenizer(texts, truncation=True, max_length=max_seq_length, add_special_tokens=True)
    n_layers = 1 if pooling == "pooler" else encoder.config.num_hidden_layers + 1
    out = np.zeros((n_layers, len(texts), encoder.config.hidden_size), dtype=np.float32)
    device = _device_of(encoder)
    done = 0
    with torch.inference_mode():
        for chunk, batch in batches(tokenizer, encoded["input_ids"], batch_size):
            check_cancelled(cancelled)
            batch = {k: v.to(device) for k, v in batch.items()}
            if predicted is None:
                result = encoder(**batch, output_hidden_states=pooling != "pooler")
            else:
                result, logits = _with_logits(model, encoder, batch)
                predicted.extend(zip(chunk, logits.argmax(-1).tolist()))
            rows = np.asarray(chunk)
            if pooling == "pooler":
                out[0, rows] = result.pooler_output.float().cpu().numpy()
            else:
                if pooling == "cls":   # the [CLS] rows only: stacking every token of every layer first copied them all
                    out[:, rows] = torch.stack([h[:, 0] for h in result.hidden_states], 0).float().cpu().numpy()
                else:
                    stacked = torch.stack(result.hidden_states, 0).float()
                    mask = batch["attention_mask"].to(stacked.dtype)[None, :, :, None]
                    out[:, rows] = ((stacked * mask).sum(2) / mask.sum(2)).cpu().numpy()
            done += len(chunk)
            if progress is not None:
                progress(done, len(texts))
    if predicted is not None:
        predicted[:] = [label for _, label in sorted(predicted)]
    return out


def _with_logits(model, encoder, batch: dict):
    """One forward of the whole model: (the encoder's output, caught by a forward hook, with hidden states
    and pooler output; the head's logits)."""
    caught = {}
    hook = encoder.register_forward_hook(lambda _m, _i, output: caught.setdefault("out", output))
    try:
        logits = model(**batch, output_hidden_states=True).logits
    finally:
        hook.remove()
    return caught["out"], logits


def static_embedding(model, tokenizer, word: str) -> np.ndarray:
    """The word's static input embedding: the mean of its pieces' rows of the input embedding matrix
    (``get_input_embeddings().weight``; no position or segment embedding), float32 (hidden,)."""
    import torch

    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if not ids:
        raise EmbeddingError(f"{word!r} has no word pieces in this model's vocabulary")
    with torch.inference_mode():
        weight = encoder_of(model).get_input_embeddings().weight
        return weight[torch.tensor(ids, device=weight.device)].float().mean(0).cpu().numpy()
