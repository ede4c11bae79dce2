"""Prepare the folder ``scripts/gpu_check.py`` needs on a GPU machine that cannot reach the internet.

    python scripts/gpu_bundle.py .gpu          # in the repository root, here (with internet); .gpu is git-ignored

Writes into the folder (about 55 MB, under the device tool's 64 MiB for what travels):

- ``whl/``: wheels for CPython 3.12 on manylinux x86-64 of the packages this project needs that the GPU
  machine's image lacks (its image has torch, transformers, accelerate, tokenizers, numpy, scipy, scikit-learn,
  pandas, pyarrow...; the device tool's KINDS.md lists them): datasets and its dill and multiprocess, seqeval
  (built here: it is published as source only), captum, openpyxl and et_xmlfile, krippendorff. The versions are
  the ones installed here.
- ``data/train.json``, ``data/dev.json``: the first 2,000 questions of ../shared/data/squad_v1.1/train-subset.json
  and the first 1,000 of dev-part1.json (official SQuAD format).
- ``minilm/``: the bundled encoder saved in float16 (45 MB instead of 90; training upcasts to float32 master
  weights, explorer.core.training.setup) with its tokenizer.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EXPLORER_REAL_DATA", ROOT.parent / "shared" / "data"))
WHEELS = ("datasets", "dill", "multiprocess", "captum", "openpyxl", "et_xmlfile", "krippendorff")
BUILT_HERE = ("seqeval",)   # source distributions only: built into a pure-Python wheel here
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux1_x86_64")


def download_wheels(folder: Path) -> list[str]:
    """The wheels of WHEELS (their versions here) for CPython 3.12 x86-64, and BUILT_HERE built; their names."""
    folder.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in WHEELS]
    plat = [arg for p in PLATFORMS for arg in ("--platform", p)]
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.12", "--implementation", "cp", *plat, "-d", str(folder), *pins], check=True)
    built = [f"{name}=={importlib.metadata.version(name)}" for name in BUILT_HERE]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder), *built],
                   check=True)
    return sorted(p.name for p in folder.glob("*.whl"))


def write_subset(src: Path, n: int, out: Path) -> int:
    """The first ``n`` questions of an official SQuAD file, written as one; returns how many were written."""
    data = json.loads(src.read_text(encoding="utf-8"))
    kept, total = [], 0
    for article in data["data"]:
        paragraphs = []
        for para in article["paragraphs"]:
            qas = para["qas"][: max(0, n - total)]
            total += len(qas)
            if qas:
                paragraphs.append({**para, "qas": qas})
        if paragraphs:
            kept.append({**article, "paragraphs": paragraphs})
        if total >= n:
            break
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"version": data.get("version", "1.1"), "data": kept}), encoding="utf-8")
    return total


def save_fp16_encoder(folder: Path) -> None:
    """The bundled encoder (with a QA head, new) and its tokenizer, weights in float16."""
    import torch

    from explorer.core.models.loading import load_model

    loaded = load_model("bundled:minilm", task="qa")
    loaded.model.to(torch.float16).save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="where to write (e.g. .gpu in the repository root; keep it out of git)")
    p.add_argument("--train-questions", type=int, default=2000)
    p.add_argument("--dev-questions", type=int, default=1000)
    args = p.parse_args(argv)
    out = Path(args.folder)
    sys.path.insert(0, str(ROOT))
    print("wheels:", ", ".join(download_wheels(out / "whl")))
    n_train = write_subset(DATA / "squad_v1.1" / "train-subset.json", args.train_questions, out / "data" / "train.json")
    n_dev = write_subset(DATA / "squad_v1.1" / "dev-part1.json", args.dev_questions, out / "data" / "dev.json")
    print(f"data: {n_train} training and {n_dev} dev questions")
    save_fp16_encoder(out / "minilm")
    print(f"{out}: {folder_mb(out):.1f} MB (the device tool carries at most 64 MiB with the working tree)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
