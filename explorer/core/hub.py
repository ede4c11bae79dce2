"""Downloads from the Hugging Face hub, visible and cancellable: a model or dataset repository into the
hub cache, with byte progress, and one clear sentence when it cannot be done.

:func:`fetch` wraps ``huggingface_hub.snapshot_download`` with a ``tqdm_class`` that turns the library's byte
bars into ``progress(done_bytes, total_bytes)`` calls and raises :class:`~explorer.core.errors.Cancelled`
from inside the download when ``cancelled()`` turns true. The library writes each file to a uniquely named
``<blob>.<id>.incomplete`` file and deletes it when the download raises; :func:`fetch` waits for every
download thread and then removes any ``.incomplete`` file left in the repository's cache folder, so a
cancelled or failed download leaves no half file (and, before it starts, those of a killed process). A connection cut in the middle is resumed by the library
(an HTTP ``Range`` request, up to 5 tries); when it still fails the error says so in one sentence.

The second use needs no network: with ``HF_HUB_OFFLINE=1`` (or the hub unreachable) the cached snapshot is
used (:func:`cached_snapshot`). ``HF_ENDPOINT`` chooses the hub (a local one in the tests:
scripts/local_hub.py). :class:`RateMeter` turns progress calls into :class:`DownloadProgress` (bytes, rate,
ETA) for the GUI's download bar. No Qt here; ``huggingface_hub`` is imported only when a download runs.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from explorer.core.errors import Cancelled, UserError
from explorer.core.units import format_bytes

MODEL_FILES = ["config.json", "*.safetensors", "model.safetensors.index.json", "tokenizer.json",
               "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "vocab.txt", "vocab.json",
               "merges.txt", "spiece.model", "sentencepiece.bpe.model"]
"""What a model download fetches: config, safetensors weights, tokenizer files (never pickled weights)."""
DATASET_FILES = ["README.md", "*.json", "*.jsonl", "*.parquet", "*.csv", "*.tsv", "*.txt"]
"""What a dataset download fetches (``*`` matches folders too): its card (the YAML names the configs) and data
files, never a loading script."""
CHUNK_BYTES = 1024 * 1024   # huggingface_hub reads 10 MiB per progress call; 1 MiB gives a smooth bar
MAX_WORKERS = 4             # files downloaded at once
STALE_INCOMPLETE_S = 600    # a .incomplete file untouched this long belongs to a download that died

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


class HubError(UserError, RuntimeError):
    """A hub repository that cannot be downloaded (missing, gated, offline, connection cut); the message is
    one sentence saying which repository and what to do."""


def is_hub_id(source: str) -> bool:
    """True for an ``owner/name`` that is not an existing path (``test-org/minilm-squad``). One-word ids
    (``bert-base-uncased``) are hub ids too but are left to :func:`explorer.core.models.loading.resolve_source`."""
    source = (source or "").strip()
    return bool(_HUB_ID.match(source)) and not Path(source).expanduser().exists()


def is_offline() -> bool:
    """HF_HUB_OFFLINE (or HF_DATASETS_OFFLINE / TRANSFORMERS_OFFLINE) set to a true value."""
    return any(os.environ.get(v, "0") not in ("0", "", "false", "False")
               for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"))


def hub_reachable(timeout_s: float) -> bool:
    """Can a TCP connection to the hub endpoint (``HF_ENDPOINT``) be opened within ``timeout_s`` seconds? A DNS
    failure answers no at once; an unusable endpoint setting answers no."""
    import socket
    from urllib.parse import urlparse

    try:
        from huggingface_hub import constants

        url = urlparse(constants.ENDPOINT)
    except Exception:  # noqa: BLE001 - no usable endpoint setting: treat the hub as unreachable
        return False
    try:
        with socket.create_connection((url.hostname, url.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def cached_snapshot(repo_id: str, repo_type: str = "model", revision: str = "main") -> str | None:
    """The cached snapshot folder of ``repo_id`` at ``revision`` (via the cache's refs), or None."""
    try:
        from huggingface_hub import constants
        from huggingface_hub.file_download import repo_folder_name
    except ImportError:
        return None
    storage = Path(constants.HF_HUB_CACHE) / repo_folder_name(repo_id=repo_id, repo_type=repo_type)
    ref = storage / "refs" / revision
    commit = ref.read_text().strip() if ref.is_file() else revision
    snapshot = storage / "snapshots" / commit
    return str(snapshot) if snapshot.is_dir() and any(snapshot.iterdir()) else None


def _repo_storage(repo_id: str, repo_type: str, cache_dir: str | None) -> Path:
    from huggingface_hub import constants
    from huggingface_hub.file_download import repo_folder_name

    return Path(cache_dir or constants.HF_HUB_CACHE) / repo_folder_name(repo_id=repo_id, repo_type=repo_type)


def remove_incomplete(repo_id: str, repo_type: str = "model", cache_dir: str | None = None,
                      older_than_s: float = 0.0) -> list[str]:
    """Delete the ``.incomplete`` files in the repository's cache folder (half downloads) not written to for
    ``older_than_s`` seconds (0: all); returns their paths."""
    blobs = _repo_storage(repo_id, repo_type, cache_dir) / "blobs"
    removed = []
    now = time.time()
    for path in blobs.glob("*.incomplete") if blobs.is_dir() else ():
        try:
            if older_than_s and now - path.stat().st_mtime < older_than_s:
                continue
            path.unlink()
            removed.append(str(path))
        except OSError:
            pass
    return removed


def _progress_class(progress: Callable[[int, int], None] | None, cancelled: Callable[[], bool] | None):
    """A tqdm stand-in for snapshot_download: byte bars report (done, total); every update checks cancel."""
    import threading

    lock = threading.Lock()

    class _Bar:
        def __init__(self, iterable=None, *args, **kwargs):
            self.iterable = iterable
            self.total = kwargs.get("total") or 0
            self.n = kwargs.get("initial") or 0
            self.bytes = kwargs.get("unit") == "B"

        def __iter__(self):
            return iter(self.iterable or ())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n=1):
            if cancelled is not None and cancelled():
                raise Cancelled()
            with lock:
                self.n += n or 0
            if self.bytes and progress is not None:
                progress(int(self.n), int(max(self.total or 0, self.n)))

        def refresh(self, *args, **kwargs):
            pass

        def close(self):
            pass

        def set_description(self, *args, **kwargs):
            pass

        set_description_str = set_postfix_str = set_postfix = clear = set_description

        @classmethod
        def get_lock(cls):
            return lock

        @classmethod
        def set_lock(cls, _lock):
            pass

    return _Bar


def fetch(repo_id: str, *, repo_type: str = "model", revision: str = "main",
          progress: Callable[[int, int], None] | None = None, cancelled: Callable[[], bool] | None = None,
          allow_patterns: list[str] | None = None, cache_dir: str | None = None) -> str:
    """Download (or find in the cache) a hub repository; returns the local snapshot folder.

    Args:
        repo_id: ``owner/name``.
        repo_type: "model" or "dataset".
        revision: branch, tag or commit.
        progress: called with (bytes done, bytes known so far) as bytes arrive (from download threads).
        cancelled: polled at every chunk (1 MiB); when it returns True the download stops.
        allow_patterns: files to fetch; default :data:`MODEL_FILES` or :data:`DATASET_FILES`.
        cache_dir: the hub cache (default: HF_HUB_CACHE).

    Raises:
        Cancelled: ``cancelled()`` turned true (no ``.incomplete`` file is left).
        HubError: missing or gated repository, offline without a cached copy, the hub unreachable, the
            connection cut too often, or a file that arrived short.
    """
    if allow_patterns is None:
        allow_patterns = MODEL_FILES if repo_type == "model" else DATASET_FILES
    try:
        from huggingface_hub import constants, snapshot_download
        from huggingface_hub.errors import (GatedRepoError, LocalEntryNotFoundError, RepositoryNotFoundError,
                                            RevisionNotFoundError)
    except ImportError:
        raise HubError(f"{repo_id} is a hub id, and downloading it needs the package huggingface_hub") from None
    what = "dataset" if repo_type == "dataset" else "model"
    constants.DOWNLOAD_CHUNK_SIZE = min(constants.DOWNLOAD_CHUNK_SIZE, CHUNK_BYTES)
    # half files of a process killed in the middle (an inspector closed while downloading): not another
    # process's download in progress, which writes to its file all the time
    remove_incomplete(repo_id, repo_type, cache_dir, older_than_s=STALE_INCOMPLETE_S)
    try:
        return snapshot_download(repo_id, repo_type=repo_type, revision=revision, allow_patterns=allow_patterns,
                                 cache_dir=cache_dir, tqdm_class=_progress_class(progress, cancelled),
                                 max_workers=MAX_WORKERS)
    except Cancelled:
        remove_incomplete(repo_id, repo_type, cache_dir)
        raise
    except GatedRepoError:
        raise HubError(f"The {what} {repo_id} on the hub is gated: accept its terms on its hub page and log in "
                       "(hf auth login), then try again.") from None
    except RepositoryNotFoundError:
        raise HubError(f"There is no {what} {repo_id} on the hub ({constants.ENDPOINT}), or it is private: "
                       "check the id.") from None
    except RevisionNotFoundError:
        raise HubError(f"The {what} {repo_id} has no revision {revision!r} on the hub.") from None
    except LocalEntryNotFoundError as exc:
        remove_incomplete(repo_id, repo_type, cache_dir)
        if is_offline():
            raise HubError(f"The {what} {repo_id} is not in the local cache and this machine is offline "
                           "(HF_HUB_OFFLINE=1): download it once while online, or use a local folder.") from None
        raise HubError(f"The hub ({constants.ENDPOINT}) cannot be reached and the {what} {repo_id} is not in "
                       f"the local cache: check the connection ({_first_line(exc)}).") from None
    except Exception as exc:  # noqa: BLE001 - httpx errors after the library's own retries, short files, disk
        remove_incomplete(repo_id, repo_type, cache_dir)
        if type(exc).__module__.startswith(("httpx", "httpcore")) or "Consistency check failed" in str(exc):
            raise HubError(f"The download of {repo_id} was cut off and could not be resumed "
                           f"({_first_line(exc)}); nothing half-downloaded was kept: try again.") from None
        if isinstance(exc, OSError):
            raise HubError(f"The download of {repo_id} failed ({_first_line(exc)}); nothing half-downloaded "
                           "was kept.") from None
        raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:160] if text else type(exc).__name__).rstrip(".")


@dataclass(frozen=True)
class DownloadProgress:
    """What the download bar shows.

    Attributes:
        repo_id: the repository.
        done_bytes / total_bytes: bytes received and bytes known so far (the total grows while the file
            list is read).
        rate_bps: bytes per second over the last few seconds (None before two samples).
        eta_s: seconds left at that rate (None when unknown).
    """

    repo_id: str
    done_bytes: int
    total_bytes: int
    rate_bps: float | None = None
    eta_s: float | None = None

    @property
    def fraction(self) -> float:
        return min(1.0, self.done_bytes / self.total_bytes) if self.total_bytes else 0.0

    def text(self) -> str:
        """'12 MiB of 87 MiB · 4.1 MiB/s · about 18 s left'."""
        parts = [f"{format_bytes(self.done_bytes)} of {format_bytes(self.total_bytes)}"]
        if self.rate_bps:
            parts.append(f"{format_bytes(self.rate_bps)}/s")
        if self.eta_s is not None:
            parts.append(f"about {format_eta(self.eta_s)} left")
        return " · ".join(parts)


def format_eta(seconds: float) -> str:
    """'8 s', '2 min 05 s', '1 h 04 min'."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class RateMeter:
    """Turns (done, total) samples into :class:`DownloadProgress`: the rate over a sliding window of
    ``window_s`` seconds (``clock`` is injectable for tests)."""

    def __init__(self, repo_id: str, window_s: float = 3.0, clock: Callable[[], float] = time.monotonic):
        self.repo_id = repo_id
        self.window_s = window_s
        self.clock = clock
        self._samples: list[tuple[float, int]] = []

    def update(self, done: int, total: int) -> DownloadProgress:
        now = self.clock()
        self._samples.append((now, done))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_s:
            self._samples.pop(0)
        rate = eta = None
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        if t1 > t0 and d1 > d0:
            rate = (d1 - d0) / (t1 - t0)
            eta = max(0, total - done) / rate if total else None
        return DownloadProgress(self.repo_id, int(done), int(total), rate, eta)


def parse_dataset_source(source: str, default_split: str) -> tuple[str, str | None, str] | None:
    """``owner/name[::config[::split]]`` -> (repo id, config or None, split); None when not that form."""
    parts = (source or "").strip().split("::")
    if len(parts) > 3:
        return None
    config = parts[1] if len(parts) > 1 and parts[1] else None
    split = parts[2] if len(parts) > 2 and parts[2] else default_split
    return parts[0], config, split


def load_hub_dataset(repo_id: str, config: str | None, split: str, *, progress=None, cancelled=None):
    """A hub dataset's split as a ``datasets.Dataset``: the repository's data files are fetched with
    :func:`fetch` (progress, cancel, the cache offline) and read by ``datasets.load_dataset`` from the
    snapshot folder (its README's YAML names the configs). A repository without data files in a
    known format (a loading script) is read by ``datasets.load_dataset(repo_id, ...)`` itself.

    Raises:
        HubError: as :func:`fetch`; ValueError / datasets' errors for an unknown config or split.
    """
    import datasets

    folder = cached_snapshot(repo_id, "dataset") if is_offline() else None
    if folder is None:
        folder = fetch(repo_id, repo_type="dataset", progress=progress, cancelled=cancelled)
    if not any(p.suffix in (".json", ".jsonl", ".parquet", ".csv", ".tsv", ".txt")
               for p in Path(folder).rglob("*") if p.is_file()):
        return datasets.load_dataset(repo_id, config, split=split)
    return datasets.load_dataset(folder, config, split=split)
