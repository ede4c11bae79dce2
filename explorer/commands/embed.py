"""`bert-explorer embed`: the embeddings of a word in context (one point per occurrence) or of every text of a
file (one point per text), written in the TensorBoard projector format with a CSV of their 2-D map
(explorer.core.embeddings).

Writes into ``--out``: ``vectors.tsv`` (one row per point, tab-separated floats, no header), ``metadata.tsv``
(a header row, then text, word, layer, context and the corpus's other columns per point),
``projector_config.pbtxt`` (TensorBoard's projector plugin reads the folder as a log folder) and
``coordinates.csv`` (x, y and the metadata of the chosen layer's map). With ``--word`` the word's static
input embedding is one more point, whose layer is "static". Progress on stderr (tqdm).
"""

from __future__ import annotations

import argparse
import sys

from explorer.cli_vocabulary import add_table_arguments
from explorer.commands.window_args import add_device_argument, add_tokenizer_argument
from explorer.core.errors import EmbeddingError, exits_on_user_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explorer.core.embeddings.projection import PROJECTIONS
    from explorer.core.embeddings.vectors import POOLINGS

    parser.add_argument("--model", default="bundled:minilm",
                        help="hub id, local folder (save_pretrained / run checkpoint) or bundled:minilm "
                             "(default: %(default)s)")
    add_tokenizer_argument(parser)
    parser.add_argument("--data", required=True,
                        help="the corpus: a .txt file (one text per line), a CSV / TSV / JSONL / xlsx table, a "
                             "SQuAD .json file (its passages) or a run folder (its training data)")
    add_table_arguments(parser, text_help="one; default: a column named like text, else the first")
    parser.add_argument("--word", default="", help="a word or phrase: one point per occurrence (whole words); "
                                                   "without it, one point per text")
    parser.add_argument("--case-sensitive", action="store_true", help="match --word with its case")
    parser.add_argument("--layer", default="-1",
                        help="the layer written: 0 = the input embeddings .. the last (-1, the default), or "
                             "'all' (every layer's points, stacked; the layer column says which)")
    parser.add_argument("--pooling", choices=POOLINGS, default="cls",
                        help="without --word: [CLS], the pooler output, or the mean of the last layer "
                             "(default: %(default)s)")
    parser.add_argument("--max-occurrences", type=int, default=2000,
                        help="at most N occurrences (spread evenly over the corpus) or texts; 0 = all "
                             "(default: %(default)s)")
    parser.add_argument("--projection", choices=PROJECTIONS, default="pca",
                        help="the 2-D map of coordinates.csv: pca, tsne or umap (needs umap-learn) "
                             "(default: %(default)s)")
    parser.add_argument("--clusters", type=int, default=0, help="add a k-means 'cluster' column with K clusters")
    parser.add_argument("--max-seq-length", type=int, default=0,
                        help="tokens per input; 0 = the model's limit for words, 128 for texts")
    parser.add_argument("--batch-size", type=int, default=16, help="inputs per forward pass (default: %(default)s)")
    add_device_argument(parser)
    parser.add_argument("--out", required=True, help="the folder to write the files into")


class _Bar:
    """tqdm on stderr, one bar per stage."""

    def __init__(self, desc: str, unit: str):
        self.desc, self.unit, self.bar = desc, unit, None

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, unit=self.unit, file=sys.stderr, dynamic_ncols=True, desc=self.desc)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _layer(text: str) -> tuple[int, bool]:
    if text.strip().lower() == "all":
        return -1, True
    try:
        return int(text), False
    except ValueError:
        raise EmbeddingError(f"--layer {text!r}: give a layer number (0 = input embeddings, -1 = last) or 'all'") from None


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    """Embed, project, write; prints what was written. Exit 0, or 2 for bad input (UserError)."""
    from explorer.core.embeddings.corpus import read_corpus
    from explorer.core.embeddings.export import export_space
    from explorer.core.embeddings.projection import project_space
    from explorer.core.embeddings.space import space_of
    from explorer.core.devices import place
    from explorer.core.embeddings.vectors import load_encoder

    layer, all_layers = _layer(args.layer)
    columns = list(args.text_columns or [])
    if len(columns) > 1:
        raise EmbeddingError(f"--text-columns: embed reads one text column; got {len(columns)} ({', '.join(columns)})")
    corpus = read_corpus(args.data, text_column=columns[0] if columns else "", no_header=bool(args.no_header),
                         encoding=args.encoding)
    loaded = load_encoder(args.model, tokenizer=args.tokenizer)
    place(loaded.model, args.device)
    if loaded.tokenizer_note:
        print(f"note: {loaded.tokenizer_note}", file=sys.stderr)
    bar = _Bar("embed", "occurrence" if args.word.strip() else "text")
    try:
        space = space_of(loaded, corpus, word=args.word, case_sensitive=args.case_sensitive,
                         max_occurrences=args.max_occurrences, pooling=args.pooling,
                         max_seq_length=args.max_seq_length, batch_size=max(1, args.batch_size), progress=bar)
    finally:
        bar.close()
    shown = space.layers[space.layer_row(layer)]
    tsne_bar = _Bar(args.projection, "iteration")
    try:
        projection, _ = project_space(space, shown, args.projection, clusters=args.clusters, progress=tsne_bar)
    finally:
        tsne_bar.close()
    files = export_space(space, args.out, shown, projection, all_layers=all_layers)
    for note in corpus.notes + space.notes:
        print(note)
    n_rows = space.n_points * (len(space.layers) if all_layers else 1) + (space.static is not None)
    print(f"{files.vectors}: {n_rows:,} points x {space.vectors.shape[2]} dimensions "
          f"({'every layer' if all_layers else f'layer {shown}'})")
    print(f"{files.metadata}\n{files.config}\n{files.coordinates}: the {args.projection} map of layer {shown}")
    return 0
