"""An HF Trainer checkpoint saved without its tokenizer is never read with a made-up 5-token tokenizer (every
word [UNK]) in Classify and `bert-explorer predict`, silently. A checkpoint without a tokenizer takes its base
model's (the parent folder's, config.json's ``_name_or_path``, a model card's ``base_model``, or a
model here whose word embeddings it has), says so, or is refused with what to add; a tokenizer that does not fit
the embedding matrix is refused with both numbers. Every model-loading path goes through core.models.loading.load_model."""

import json
import re
from pathlib import Path

import pytest
from helpers import REPO_ROOT, run_cli, save_tiny_model, tiny_tokenizer

from explorer.core.errors import ModelSourceError
from explorer.core.models.loading import load_model


def _without_tokenizer(base: Path, out: Path, *, nudge: float = 0.0, seed: int = 0) -> Path:
    """A Trainer-style checkpoint of ``base`` (weights and config, no tokenizer files): the model loaded from base,
    its weights moved by ``nudge`` (relative; a fine-tune), saved with save_pretrained only."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(base)
    if nudge:
        torch.manual_seed(seed)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(nudge * p.abs().mean() * torch.randn_like(p))
    model.save_pretrained(out)
    assert not any((out / f).exists() for f in ("tokenizer.json", "vocab.txt", "tokenizer_config.json"))
    return out


def _set_config(folder: Path, **values) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.update(values)
    (folder / "config.json").write_text(json.dumps(config))


def test_no_tokenizer_anywhere_is_refused_naming_the_folder_and_what_to_add(tmp_path):
    base = save_tiny_model(tmp_path / "base", task="classification")
    ckpt = _without_tokenizer(base, tmp_path / "hf_output" / "checkpoint-40")
    with pytest.raises(ModelSourceError) as err:
        load_model(str(ckpt), "classification")
    msg = str(err.value)
    assert str(ckpt) in msg and "has no tokenizer" in msg and "[UNK]" in msg
    assert "--tokenizer" in msg and f"tokenizer.save_pretrained('{ckpt}')" in msg
    # the same through `bert-explorer predict`: exit 2 and the reason, no file of meaningless rows
    data = tmp_path / "new.csv"
    data.write_text("text\nthe city was born\nada wrote the answer\n")
    proc = run_cli(["predict", "--model", ckpt, "--data", data, "--out", tmp_path / "out.csv"])
    assert proc.returncode == 2 and "has no tokenizer" in proc.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_base_model_named_in_config_json_gives_its_tokenizer_and_it_is_said(tmp_path):
    base = save_tiny_model(tmp_path / "base", task="classification")
    ckpt = _without_tokenizer(base, tmp_path / "out" / "checkpoint-8", nudge=0.01)
    _set_config(ckpt, _name_or_path=str(base))       # what transformers 4 wrote into a Trainer checkpoint
    loaded = load_model(str(ckpt), "classification")
    assert loaded.tokenizer_note == f"tokenizer from {base}: the checkpoint has none (its config or model card " \
                                    "names that base model)"
    assert loaded.tokenizer_note in loaded.describe()
    assert "[UNK]" not in loaded.tokenizer.tokenize("the city was born")
    assert len(loaded.tokenizer) == len(tiny_tokenizer())


def test_a_model_card_base_model_is_read_too(tmp_path):
    base = save_tiny_model(tmp_path / "base", task="classification")
    ckpt = _without_tokenizer(base, tmp_path / "out" / "checkpoint-8")
    (ckpt.parent / "README.md").write_text(f"---\nlibrary_name: transformers\nbase_model:\n- {base}\n---\n# x\n")
    assert load_model(str(ckpt), "classification").tokenizer_note.startswith(f"tokenizer from {base}:")


def test_a_model_here_with_the_checkpoints_word_embeddings_gives_its_tokenizer(tmp_path, monkeypatch):
    """A Trainer checkpoint of transformers 5, which writes no _name_or_path: its word embeddings are the bundled
    encoder's moved by fine-tuning (0.07 % there), another model of the same shape is nowhere near."""
    from explorer.core.models import tokenizer_source

    base = save_tiny_model(tmp_path / "bundled-model", task="classification", seed=1)
    other = save_tiny_model(tmp_path / "other-model", task="classification", seed=2)
    monkeypatch.setattr(tokenizer_source, "_bundled_folders",
                        lambda: {"bundled:other": str(other), "bundled:tiny": str(base)})
    ckpt = _without_tokenizer(base, tmp_path / "hf_output" / "checkpoint-40", nudge=0.002)
    loaded = load_model(str(ckpt), "classification")
    assert re.fullmatch(r"tokenizer from bundled:tiny: the checkpoint has none \(its word embeddings match that "
                        r"model's, relative difference 0\.00\d\d\)", loaded.tokenizer_note), loaded.tokenizer_note
    far = _without_tokenizer(base, tmp_path / "far" / "checkpoint-1", nudge=0.5)   # not this model any more
    with pytest.raises(ModelSourceError, match="match no model here"):
        load_model(str(far), "classification")


def test_the_tokenizer_can_be_given_and_predict_says_whose_it_is(tmp_path):
    base = save_tiny_model(tmp_path / "base", task="classification")
    ckpt = _without_tokenizer(base, tmp_path / "hf_output" / "checkpoint-40")
    data = tmp_path / "new.csv"
    data.write_text("text\nthe city was born\nada wrote the answer\n")
    out = tmp_path / "out.csv"
    proc = run_cli(["predict", "--model", ckpt, "--tokenizer", base, "--data", data, "--out", out])
    assert proc.returncode == 0, proc.stderr
    assert f"note: tokenizer from {base} (as given)" in proc.stderr and out.exists()
    assert proc.stderr.count("note: tokenizer from") == 1, proc.stderr   # once, not before and after the bar
    bad = run_cli(["predict", "--model", ckpt, "--tokenizer", tmp_path / "nowhere", "--data", data, "--out", out])
    assert bad.returncode == 2 and "nowhere" in bad.stderr


def test_a_tokenizer_far_smaller_or_larger_than_the_embedding_matrix_is_refused(tmp_path):
    from transformers import BertConfig, BertForSequenceClassification

    from explorer.core.models.tokenizer_source import check_vocabulary

    big = tmp_path / "big"
    BertForSequenceClassification(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1,
                                             num_attention_heads=2, intermediate_size=32)).save_pretrained(big)
    tiny_tokenizer().save_pretrained(big)       # a 120-token tokenizer beside a 30,522-row matrix
    n = len(tiny_tokenizer())
    with pytest.raises(ModelSourceError) as err:
        load_model(str(big), "classification")
    assert f"has {n:,} tokens but the model's embedding matrix has 30,522 rows" in str(err.value)
    with pytest.raises(ModelSourceError, match=r"has 200 tokens but the model's embedding matrix has only 150 rows"):
        check_vocabulary(200, 150, "m", "t")
    check_vocabulary(50280, 50368, "modernbert", "its own")   # a matrix padded to a multiple of 64: fine


def test_a_checkpoint_with_its_own_tokenizer_is_as_before(tmp_path):
    folder = save_tiny_model(tmp_path / "m", task="classification")
    loaded = load_model(str(folder), "classification")
    assert loaded.tokenizer_note == "" and "tokenizer" not in loaded.describe()


def test_every_model_loading_path_goes_through_load_model():
    """No tokenizer and no task model is loaded anywhere but core.models.loading.load_model (the one place that finds and
    checks the tokenizer): probe / inspectors, classify, predict, eval, embed, explain, train."""
    pattern = re.compile(r"(AutoTokenizer|AutoModelFor\w+|Tokenizer(Fast)?)\.from_pretrained\(")
    hits = [f"{p.relative_to(REPO_ROOT)}:{i}" for p in sorted((REPO_ROOT / "explorer").rglob("*.py"))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line) and p.relative_to(REPO_ROOT).as_posix() != "explorer/core/models/loading.py"]
    assert hits == []
    callers = {p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "explorer").rglob("*.py")
               if re.search(r"\bload_(model|encoder)\(", p.read_text(encoding="utf-8"))}
    for path in ("explorer/worker/inspector_ops.py", "explorer/core/predict/engine.py", "explorer/commands/eval.py",
                 "explorer/commands/probe.py", "explorer/commands/explain.py", "explorer/commands/embed.py",
                 "explorer/core/embeddings/vectors.py", "explorer/core/training/setup.py", "explorer/commands/compare.py"):
        assert path in callers, path
