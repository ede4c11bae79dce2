"""Point clouds in the original vector space (Qt-free; numpy, scipy, scikit-learn): orthogonal Procrustes
alignment of one cloud onto another, k-means clusters and cosine nearest neighbours.
"""

from __future__ import annotations

import numpy as np


def procrustes_align(source: np.ndarray, target: np.ndarray, *, scale: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Rotate ``source`` (n, d) onto ``target`` (n, d), row i onto row i: both centred, the orthogonal
    R minimising ||(S - mean S) R - (T - mean T)||_F (scipy.linalg.orthogonal_procrustes), then moved to
    T's mean; ``scale`` also scales S to T's spread (for 2-D maps). Returns (aligned (n, d), R (d, d))."""
    from scipy.linalg import orthogonal_procrustes

    s = np.asarray(source, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    sc, tc = s - s.mean(0), t - t.mean(0)
    rotation, trace = orthogonal_procrustes(sc, tc)
    factor = trace / max((sc ** 2).sum(), 1e-12) if scale else 1.0
    return sc @ rotation * factor + t.mean(0), rotation


def kmeans(vectors: np.ndarray, k: int, *, seed: int = 0) -> np.ndarray:
    """k-means cluster of each row (scikit-learn KMeans, 10 restarts), int array (n,); k is capped at n."""
    from sklearn.cluster import KMeans

    k = max(1, min(int(k), len(vectors)))
    return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(np.asarray(vectors, np.float64)).astype(int)


def nearest_neighbours(vectors: np.ndarray, index: int, k: int = 10) -> list[tuple[int, float]]:
    """The ``k`` rows nearest row ``index`` by cosine similarity in the original space (itself left out):
    [(row, cosine)], most similar first."""
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1)
    norms[norms == 0] = 1.0
    sims = (x @ x[index]) / (norms * norms[index])
    sims[index] = -np.inf
    k = min(k, len(x) - 1)
    best = np.argpartition(-sims, k - 1)[:k] if k > 0 else np.array([], int)
    best = best[np.argsort(-sims[best], kind="stable")]
    return [(int(j), float(sims[j])) for j in best]
