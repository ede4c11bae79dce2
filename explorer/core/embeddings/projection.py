"""2-D maps of embedding spaces (Qt-free; scikit-learn, umap-learn when installed): :func:`project` (PCA, t-SNE,
UMAP), :func:`shared_pca` (one projection fitted on all layers stacked) and :func:`project_space` (a layer, or
every layer, in the frame shared by all layers, t-SNE and UMAP rotated onto it by orthogonal Procrustes).
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from explorer.core.embeddings.geometry import kmeans, procrustes_align
from explorer.core.embeddings.space import EmbeddingSpace
from explorer.core.embeddings.vectors import Progress, check_cancelled
from explorer.core.errors import EmbeddingError

PROJECTIONS = ("pca", "tsne", "umap")
PROJECTION_LABELS = {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}


def umap_available() -> bool:
    """True when ``umap-learn`` can be imported (the optional extra ``bert-explorer[umap]``)."""
    import importlib.util

    return importlib.util.find_spec("umap") is not None


def available_projections() -> tuple[str, ...]:
    """The projections this installation can run: pca, tsne and, with umap-learn, umap."""
    return PROJECTIONS if umap_available() else PROJECTIONS[:2]


def shared_pca(vectors: np.ndarray, extra: np.ndarray | None = None, *, seed: int = 0) -> np.ndarray:
    """One PCA fitted on every layer's points stacked (and ``extra`` rows, e.g. the static embedding),
    applied to each layer: (layers, points [+ extra], 2) float32, one frame for the layer slider."""
    from sklearn.decomposition import PCA

    rows = vectors if extra is None else np.concatenate([vectors, np.broadcast_to(extra, (vectors.shape[0], 1) + extra.shape)], 1)
    flat = rows.reshape(-1, rows.shape[-1])
    pca = PCA(n_components=2, random_state=seed).fit(flat)
    return pca.transform(flat).reshape(rows.shape[0], rows.shape[1], 2).astype(np.float32)


class _IterationReader(io.TextIOBase):
    """t-SNE's verbose lines ("[t-SNE] Iteration 350: error = ...") turned into progress and cancel."""

    def __init__(self, total: int, progress: Progress | None, cancelled):
        self.total, self.progress, self.cancelled = total, progress, cancelled

    def write(self, text: str) -> int:
        check_cancelled(self.cancelled)
        found = re.search(r"Iteration (\d+)", text)
        if found and self.progress is not None:
            self.progress(min(int(found.group(1)), self.total), self.total)
        return len(text)


def project(vectors: np.ndarray, method: str = "pca", *, seed: int = 0, perplexity: float = 30.0,
            iterations: int = 1000, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> np.ndarray:
    """(n, d) -> (n, 2) float32 by PCA, t-SNE (scikit-learn, Barnes-Hut, PCA init; progress every 50 of its
    ``iterations`` (at least 250), cancel between them) or UMAP (umap-learn, cosine metric).

    Raises:
        EmbeddingError: unknown method, UMAP without umap-learn, fewer than 3 points for t-SNE / UMAP.
    """
    x = np.asarray(vectors, dtype=np.float32)
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(x).astype(np.float32)
    if method not in PROJECTIONS:
        raise EmbeddingError(f"unknown projection {method!r}; use one of {', '.join(PROJECTIONS)}")
    if len(x) < 4:
        raise EmbeddingError(f"{PROJECTION_LABELS[method]} needs at least 4 points; there are {len(x)}")
    if method == "umap":
        if not umap_available():
            raise EmbeddingError("UMAP needs the optional package umap-learn (pip install 'bert-explorer[umap]')")
        import umap

        check_cancelled(cancelled)
        return umap.UMAP(n_components=2, metric="cosine", random_state=seed,
                         n_neighbors=min(15, len(x) - 1)).fit_transform(x).astype(np.float32)
    from sklearn.manifold import TSNE

    iterations = max(250, int(iterations))
    tsne = TSNE(n_components=2, perplexity=min(perplexity, (len(x) - 1) / 3), init="pca", random_state=seed,
                max_iter=iterations, verbose=2)
    with contextlib.redirect_stdout(_IterationReader(iterations, progress, cancelled)):
        coords = tsne.fit_transform(x)
    if progress is not None:
        progress(iterations, iterations)
    return coords.astype(np.float32)


@dataclass
class Projection:
    """A 2-D map of a space's points: ``coords`` (points, 2) float32, ``static`` (2,) the static embedding's
    place or None, ``method`` ("pca" | "tsne" | "umap"), ``layer`` (-1 = every layer, stacked: then
    ``point_layers`` gives each point's layer and the points repeat layer by layer), ``clusters`` (k-means
    label per point or None)."""

    layer: int
    method: str
    coords: np.ndarray
    static: np.ndarray | None = None
    clusters: list[int] | None = None
    point_layers: list[int] | None = None


def project_space(space: EmbeddingSpace, layer: int | None, method: str = "pca", *, clusters: int = 0,
                  seed: int = 0, shared: np.ndarray | None = None, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None) -> tuple[Projection, np.ndarray]:
    """Layer ``layer`` of ``space`` in 2-D, in the frame shared by all its layers: PCA is fitted once on every
    layer stacked (``shared``: that result, computed when None); t-SNE and UMAP are fitted on this layer and
    rotated and scaled onto the shared PCA map of the layer by orthogonal Procrustes, so that moving the slider
    does not flip the picture. ``layer`` None: every layer's points in one map (t-SNE / UMAP fitted on all
    layers stacked). ``clusters`` > 0 adds k-means labels of the vectors (of this layer, or of each layer's
    points for all layers).

    Returns:
        (Projection, shared) - keep ``shared`` for the next layer."""
    if shared is None:
        shared = shared_pca(space.vectors, space.static, seed=seed)
    n = space.n_points
    if layer is None:
        rows = range(len(space.layers))
        coords = shared[:, :n].reshape(-1, 2)
        static = shared[-1, n] if space.static is not None else None
        if method != "pca":
            x = space.vectors.reshape(-1, space.vectors.shape[2])
            x = x if space.static is None else np.vstack([x, space.static[None]])
            target = coords if static is None else np.vstack([coords, static[None]])
            fitted = procrustes_align(project(x, method, seed=seed, progress=progress, cancelled=cancelled), target,
                                      scale=True)[0].astype(np.float32)
            coords, static = fitted[:len(coords)], (fitted[-1] if space.static is not None else None)
        labels = (kmeans(space.vectors.reshape(-1, space.vectors.shape[2]), clusters, seed=seed).tolist()
                  if clusters else None)
        return Projection(-1, method, np.ascontiguousarray(coords, np.float32),
                          None if static is None else np.asarray(static, np.float32).copy(), labels,
                          [space.layers[r] for r in rows for _ in range(n)]), shared
    row = space.layer_row(layer)
    coords = shared[row]
    if method != "pca":
        x = space.vectors[row] if space.static is None else np.vstack([space.vectors[row], space.static[None]])
        coords = procrustes_align(project(x, method, seed=seed, progress=progress, cancelled=cancelled), coords,
                                  scale=True)[0].astype(np.float32)
    labels = kmeans(space.vectors[row], clusters, seed=seed).tolist() if clusters else None
    return Projection(space.layers[row], method, coords[:n].copy(),
                      coords[n].copy() if space.static is not None else None, labels), shared
