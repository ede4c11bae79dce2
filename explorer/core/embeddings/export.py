"""An embedding space written for other tools (Qt-free): the TensorBoard projector files (``vectors.tsv``,
``metadata.tsv``, ``projector_config.pbtxt``) and a CSV of a 2-D map's coordinates.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.embeddings.projection import Projection
from explorer.core.embeddings.space import EmbeddingSpace
from explorer.core.errors import EmbeddingError


def projector_cell(value) -> str:
    """A metadata cell for the projector's TSV: tabs, newlines, carriage returns and backslashes escaped
    (``\\t``, ``\\n``, ``\\r``, ``\\\\``), so one point stays one row."""
    text = "" if value is None else str(value)
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r"))


@dataclass
class ProjectorFiles:
    """The files written: ``vectors`` (vectors.tsv), ``metadata`` (metadata.tsv), ``config``
    (projector_config.pbtxt), ``coordinates`` (coordinates.csv or None)."""

    vectors: str
    metadata: str
    config: str
    coordinates: str | None = None


def write_projector(folder: str | Path, vectors: np.ndarray, metadata: dict[str, list]) -> ProjectorFiles:
    """Write the TensorBoard projector format into ``folder``: ``vectors.tsv`` (one row per point, its floats
    tab-separated, no header), ``metadata.tsv`` (a header row of the column names, then one row per point)
    and ``projector_config.pbtxt`` naming both (TensorBoard's projector plugin reads it from a log folder; the
    standalone projector loads the two TSVs).

    Raises:
        EmbeddingError: a metadata column whose length is not the number of points."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    x = np.asarray(vectors, dtype=np.float32)
    for name, values in metadata.items():
        if len(values) != len(x):
            raise EmbeddingError(f"metadata column {name!r} has {len(values)} values for {len(x)} points")
    vec_path, meta_path, config_path = folder / "vectors.tsv", folder / "metadata.tsv", folder / "projector_config.pbtxt"
    with open(vec_path, "w", encoding="utf-8", newline="\n") as f:
        for row in x:
            f.write("\t".join(f"{v:.7g}" for v in row) + "\n")
    names = list(metadata)
    with open(meta_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(projector_cell(n) for n in names) + "\n")
        for i in range(len(x)):
            f.write("\t".join(projector_cell(metadata[n][i]) for n in names) + "\n")
    config_path.write_text('embeddings {\n  tensor_path: "vectors.tsv"\n  metadata_path: "metadata.tsv"\n}\n',
                           encoding="utf-8")
    return ProjectorFiles(str(vec_path), str(meta_path), str(config_path))


def write_coordinates(path: str | Path, coords: np.ndarray, metadata: dict[str, list]) -> str:
    """A CSV of the 2-D map: columns x, y, then the metadata columns; one row per point (csv module quoting)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(metadata)
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x", "y"] + names)
        for i, (x, y) in enumerate(np.asarray(coords, dtype=np.float64)):
            w.writerow([f"{x:.6g}", f"{y:.6g}"] + [metadata[n][i] for n in names])
    return str(path)


def export_space(space: EmbeddingSpace, folder: str | Path, layer: int, projection: Projection | None = None, *,
                 all_layers: bool = False, include_static: bool = True) -> ProjectorFiles:
    """``space``'s points at ``layer`` (every layer, stacked, with ``all_layers`` or a projection of every
    layer) written as projector files, plus the static embedding as a point whose layer is "static"; with
    ``projection`` also coordinates.csv (its map; clusters as a "cluster" column). Returns the files written."""
    every = all_layers or (projection is not None and projection.point_layers is not None)
    rows = list(range(len(space.layers))) if every else [space.layer_row(layer)]
    vectors, meta = [], {}
    for r in rows:
        vectors.append(space.vectors[r])
        for k, v in space.metadata(space.layers[r]).items():
            meta.setdefault(k, []).extend(v)
    n = space.n_points
    if projection is not None and projection.clusters is not None:
        if projection.point_layers is not None:
            meta["cluster"] = [str(c) for c in projection.clusters]
        elif not every:
            meta["cluster"] = [str(c) for c in projection.clusters]
        else:
            at = rows.index(space.layer_row(projection.layer))
            meta["cluster"] = ["" if i // n != at else str(projection.clusters[i % n]) for i in range(len(rows) * n)]
    x = np.concatenate(vectors, 0)
    if include_static and space.static is not None:
        x = np.vstack([x, space.static[None]])
        for k in meta:
            meta[k].append({"text": space.word, "word": space.word, "layer": "static",
                            "context": f"[{space.word}] (input embedding)"}.get(k, ""))
    files = write_projector(folder, x, meta)
    if projection is not None:
        if projection.point_layers is not None:
            cmeta = {k: v[:len(rows) * n] for k, v in meta.items()}
        else:
            at = rows.index(space.layer_row(projection.layer))
            cmeta = {k: v[at * n:(at + 1) * n] for k, v in meta.items()}
        coords = projection.coords
        if include_static and projection.static is not None and space.static is not None:
            coords = np.vstack([coords, projection.static[None]])
            cmeta = {k: cmeta[k] + [meta[k][-1]] for k in cmeta}
        files.coordinates = write_coordinates(Path(folder) / "coordinates.csv", coords, cmeta)
    return files
