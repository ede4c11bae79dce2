"""The inspector pipe's codec: plain values and core result dataclasses <-> one JSON line + npz bytes.

A message on the pipe between the GUI and the inspector child (explorer/worker/inspector.py) is one JSON
object on one line, the same style as the training worker's events; when it carries a value, the line
has ``"data"`` (a JSON tree) and ``"nbytes": N``, and exactly N bytes of an uncompressed ``.npz`` follow
the newline. Every numeric array travels in that npz, never as a JSON list:

* numpy arrays and numpy scalars keep their dtype and shape;
* long homogeneous lists are stored as columns: floats as float64, ints as int64, bools, strings as one
  UTF-8 byte array plus offsets, lists of one dataclass type as one column per field, lists of lists as
  lengths plus the flattened items, lists of dicts with the same keys as one column per key;
* dataclasses of ``explorer.core`` (ProbeResult, TauStudy, StudyFigures, ClassifyResult, ...) are rebuilt
  field by field without calling ``__init__`` (the exact state, extra attributes included);
* tuples, dicts with any keys, ``Path`` and non-finite floats round-trip exactly.

A probe's :class:`~explorer.core.attention.budget.LazyAttention` (a closure over the model) cannot cross;
it becomes a :class:`RemoteAttention` naming the probe in the child (``ref``) so that the GUI can ask the
child for one window's weights. Anything else that cannot be sent (a function, a torch tensor, a model)
raises :class:`WireError` naming where it was. Decoding only rebuilds dataclasses defined in
``explorer.core`` modules and never unpickles (``np.load(allow_pickle=False)``).
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
from pathlib import Path, PurePath
from typing import BinaryIO

import numpy as np

COLUMN_MIN = 8          # lists at least this long are stored as columns (shorter ones stay JSON)
# The events of the inspector child's replies (explorer/worker/inspector.py writes them; explorer.ui.inspectors.client
# reads them): a request's outcome, never a run's status (explorer.core.runs.status).
REPLY_READY, REPLY_PROGRESS, REPLY_RESULT, REPLY_ERROR = "ready", "progress", "result", "error"
REPLY_CANCELLED, REPLY_DROPPED = "cancelled", "dropped"
_ALLOWED_PREFIX = "explorer.core."


class WireError(ValueError):
    """A value that cannot be sent over the inspector pipe, or a frame that cannot be read."""


class RemoteAttention:
    """Stands in for a probe's LazyAttention on the GUI side: the raw weights of windows that were not kept
    are computed by the inspector child (request ``attention_weights`` with ``ref``) and stored here under
    the same budget rule (over the budget only the shown window keeps its weights)."""

    def __init__(self, within_budget: bool, dtype: str = "float16", ref=None):
        self.within_budget = bool(within_budget)
        self.dtype = str(dtype)
        self.ref = ref

    def fill(self, attention: list, k: int):
        """Window k's weights when present, else None (ask the child for them; see :meth:`store`)."""
        return attention[k].attentions

    def store(self, attention: list, k: int, weights: np.ndarray) -> np.ndarray:
        """Keep ``weights`` (layers, heads, seq, seq) as window k's, dropping the others when over budget."""
        attention[k].attentions = np.asarray(weights).astype(self.dtype, copy=False)
        if not self.within_budget:
            for j, other in enumerate(attention):
                if j != k:
                    other.attentions = None
        return attention[k].attentions

    def __eq__(self, other) -> bool:
        return isinstance(other, RemoteAttention) and (self.within_budget, self.dtype, self.ref) == \
            (other.within_budget, other.dtype, other.ref)


# ------------------------------------------------------------------------------------------- encoding
class _Encoder:
    def __init__(self):
        self.arrays: list[np.ndarray] = []

    def array(self, a: np.ndarray) -> int:
        self.arrays.append(a)
        return len(self.arrays) - 1

    def value(self, v, where: str):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, float)) and type(v) in (int, float):
            return v
        if isinstance(v, np.ndarray):
            if v.dtype.hasobject:
                raise WireError(f"{where}: an object array cannot be sent")
            return {"$a": self.array(v)}
        if isinstance(v, np.generic):
            return {"$s": self.array(np.asarray(v))}
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return {"$t": [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, list):
            return self.seq(v, where)
        if isinstance(v, dict):
            return self.mapping(v, where)
        if isinstance(v, PurePath):
            return {"$p": str(v)}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return self.dataclass(v, where)
        if type(v).__name__ == "LazyAttention":
            return {"$lazy": [bool(v.within_budget), str(v.dtype), self.value(getattr(v, "wire_ref", None), where)]}
        if isinstance(v, RemoteAttention):
            return {"$lazy": [v.within_budget, v.dtype, self.value(v.ref, where)]}
        raise WireError(f"{where}: a {type(v).__module__}.{type(v).__name__} cannot be sent over the inspector pipe")

    def mapping(self, d: dict, where: str):
        plain = all(type(k) is str and not k.startswith("$") for k in d)
        if plain and len(d) < COLUMN_MIN:
            return {k: self.value(v, f"{where}.{k}") for k, v in d.items()}
        return {"$d": self.seq(list(d.keys()), f"{where}<keys>"), "v": self.seq(list(d.values()), where)}

    def dataclass(self, obj, where: str):
        cls = type(obj)
        state = _state(obj)
        return {"$dc": _class_name(cls),
                "f": {k: self.value(v, f"{where}.{k}" if where else f"{cls.__name__}.{k}") for k, v in state.items()}}

    def seq(self, items: list, where: str):
        n = len(items)
        if n >= COLUMN_MIN:
            column = self.column(items, where)
            if column is not None:
                return column
        return [self.value(x, f"{where}[{i}]") for i, x in enumerate(items)]

    def column(self, items: list, where: str):
        """A homogeneous list as a column, or None when it is not one."""
        kinds = {type(x) for x in items}
        if len(kinds) != 1:
            return None
        kind = kinds.pop()
        if kind is float:
            return {"$f": self.array(np.array(items, dtype=np.float64))}
        if kind is bool:
            return {"$b": self.array(np.array(items, dtype=np.bool_))}
        if kind is int:
            if all(-2 ** 63 <= x < 2 ** 63 for x in items):
                return {"$i": self.array(np.array(items, dtype=np.int64))}
            return None
        if kind is str:
            return self.strings(items)
        if issubclass(kind, np.generic) and not np.dtype(kind).hasobject:
            return {"$sc": self.array(np.array(items, dtype=kind))}
        if kind is list:
            lengths = np.array([len(x) for x in items], dtype=np.int64)
            flat = [y for x in items for y in x]
            return {"$rag": self.array(lengths), "flat": self.seq(flat, f"{where}[*]")}
        if kind is dict:
            keys = list(items[0].keys())
            if all(type(k) is str for k in keys) and all(list(x.keys()) == keys for x in items):
                return {"$rows": keys, "n": len(items), "cols": {k: self.seq([x[k] for x in items], f"{where}[*].{k}") for k in keys}}
            return None
        if dataclasses.is_dataclass(kind):
            states = [_state(x) for x in items]
            names = list(states[0].keys())
            if any(list(s.keys()) != names for s in states):
                return None
            return {"$dcs": _class_name(kind), "n": len(items),
                    "cols": {k: self.seq([s[k] for s in states], f"{where}[*].{k}") for k in names}}
        return None

    def strings(self, items: list[str]):
        encoded = [s.encode("utf-8", "surrogatepass") for s in items]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return {"$str": self.array(blob), "o": self.array(offsets)}


def _state(obj) -> dict:
    """A dataclass instance's fields and any extra instance attributes, in definition order."""
    state = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    for k, v in getattr(obj, "__dict__", {}).items():
        if k not in state:
            state[k] = v
    return state


def _class_name(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


# ------------------------------------------------------------------------------------------- decoding
class _Decoder:
    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = arrays

    def value(self, t):
        if isinstance(t, list):
            return [self.value(x) for x in t]
        if not isinstance(t, dict):
            return t
        if "$a" in t:
            return self.arrays[t["$a"]]
        if "$s" in t:
            return self.arrays[t["$s"]][()]
        if "$t" in t:
            return tuple(self.value(x) for x in t["$t"])
        if "$p" in t:
            return Path(t["$p"])
        if "$d" in t:
            return dict(zip(self.value(t["$d"]), self.value(t["v"])))
        if "$dc" in t:
            return _build(_class(t["$dc"]), {k: self.value(v) for k, v in t["f"].items()})
        if "$lazy" in t:
            within, dtype, ref = t["$lazy"]
            return RemoteAttention(within, dtype, self.value(ref))
        if "$f" in t or "$i" in t or "$b" in t:
            return self.arrays[t.get("$f", t.get("$i", t.get("$b")))].tolist()
        if "$sc" in t:
            return list(self.arrays[t["$sc"]])
        if "$str" in t:
            blob, offsets = self.arrays[t["$str"]].tobytes(), self.arrays[t["o"]].tolist()
            return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip(offsets[:-1], offsets[1:])]
        if "$rag" in t:
            lengths, flat = self.arrays[t["$rag"]].tolist(), self.value(t["flat"])
            out, at = [], 0
            for n in lengths:
                out.append(flat[at:at + n])
                at += n
            return out
        if "$rows" in t:
            cols = [self.value(t["cols"][k]) for k in t["$rows"]]
            return [dict(zip(t["$rows"], row)) for row in zip(*cols)] if cols else [{} for _ in range(t["n"])]
        if "$dcs" in t:
            cls = _class(t["$dcs"])
            names = list(t["cols"].keys())
            cols = [self.value(t["cols"][k]) for k in names]
            return [_build(cls, dict(zip(names, row))) for row in zip(*cols)] if cols else \
                [_build(cls, {}) for _ in range(t["n"])]
        return {k: self.value(v) for k, v in t.items()}


def _class(name: str):
    module, _, qualname = name.partition(":")
    if not module.startswith(_ALLOWED_PREFIX):
        raise WireError(f"refusing to rebuild {name}: only explorer.core dataclasses cross the inspector pipe")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise WireError(f"unknown class {name} on the inspector pipe ({exc})") from None
    if not dataclasses.is_dataclass(obj):
        raise WireError(f"{name} is not a dataclass; refusing to rebuild it")
    return obj


def _build(cls, state: dict):
    obj = cls.__new__(cls)
    for k, v in state.items():
        object.__setattr__(obj, k, v)
    return obj


# ------------------------------------------------------------------------------------------- public API
def encode(value) -> tuple[object, list[np.ndarray]]:
    """``value`` -> (JSON-ready tree, arrays). Raises WireError for what cannot be sent (names where)."""
    enc = _Encoder()
    return enc.value(value, ""), enc.arrays


def decode(tree, arrays: list[np.ndarray]):
    """The inverse of :func:`encode`."""
    return _Decoder(arrays).value(tree)


def pack(message: dict, value=None, *, has_value: bool = False) -> bytes:
    """One frame: ``message`` as a JSON line, plus ``value`` (when given or ``has_value``) as ``"data"`` and
    the npz bytes of its arrays after the line. Raises WireError when the value cannot be sent."""
    message = dict(message)
    payload = b""
    if value is not None or has_value:
        tree, arrays = encode(value)
        message["data"] = tree
        if arrays:
            buf = io.BytesIO()
            np.savez(buf, **{f"a{i}": a for i, a in enumerate(arrays)})
            payload = buf.getvalue()
            message["nbytes"] = len(payload)
    line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n"
    return line + payload


def _header(line: bytes) -> dict:
    try:
        message = json.loads(line.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise WireError(f"not a JSON line on the inspector pipe: {line[:80]!r} ({exc})") from None
    if not isinstance(message, dict):
        raise WireError(f"not a JSON object on the inspector pipe: {line[:80]!r}")
    return message


def unpack(line: bytes, payload: bytes = b"", *, message: dict | None = None) -> tuple[dict, object]:
    """(message, value) of one frame (value None when the frame carries none)."""
    message = _header(line) if message is None else message
    if "data" not in message:
        return message, None
    arrays: list[np.ndarray] = []
    if payload:
        with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
            arrays = [npz[f"a{i}"] for i in range(len(npz.files))]
    return message, decode(message.pop("data"), arrays)


def write_frame(stream: BinaryIO, message: dict, value=None, *, has_value: bool = False) -> None:
    """Write one frame to a binary stream and flush it."""
    stream.write(pack(message, value, has_value=has_value))
    stream.flush()


def read_frame(stream: BinaryIO) -> tuple[dict, object] | None:
    """Read one frame (message, value) from a binary stream; None at the end of the stream. Raises
    WireError for a garbled line or a payload cut short."""
    raw = read_raw(stream)
    return None if raw is None else unpack(raw[1], raw[2], message=raw[0])


def read_raw(stream: BinaryIO) -> tuple[dict, bytes, bytes] | None:
    """Read one frame without decoding its value: (message, line, payload); None at the end of the stream
    (unpack(line, payload, message=message) decodes it)."""
    line = stream.readline()
    while line and not line.strip():
        line = stream.readline()
    if not line:
        return None
    message = _header(line)
    try:
        nbytes = int(message.get("nbytes", 0))
    except (ValueError, TypeError):
        raise WireError(f"bad nbytes {message.get('nbytes')!r} on the inspector pipe") from None
    payload = _read_exactly(stream, nbytes) if nbytes > 0 else b""
    return message, line, payload


def _read_exactly(stream: BinaryIO, n: int) -> bytes:
    chunks, left = [], n
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise WireError(f"the inspector pipe closed {left} bytes before the end of a {n}-byte payload")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
