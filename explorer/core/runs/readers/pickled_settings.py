"""The settings a pickle stores as plain values, read WITHOUT unpickling it: an HF Trainer's
``training_args.bin`` (explorer.core.runs.readers.trainer_folder).

``training_args.bin`` is a pickle (``torch.save`` of the TrainingArguments object): loading it would run
whatever code it names, so it is never unpickled. :func:`read_pickled_settings` walks its opcodes with
``pickletools.genops`` (parsing only, nothing imported or called) and keeps the settings stored as plain values
(numbers, text, booleans, None, lists and dicts of them, enum members by their value: ``transformers.*``
classes called with one plain value); every setting held as another object is named as not read.
"""

from __future__ import annotations

import pickletools
import zipfile
from pathlib import Path


class _Opaque:
    """An object the pickle would build by calling ``name`` (never imported, never called)."""

    def __init__(self, name: str, args=None):
        self.name, self.args, self.state = name, args, None

    def plain(self):
        """A transformers enum member (``transformers.<module>.<Class>("value")``, e.g. IntervalStrategy)
        -> its value; anything else has no plain value (raise ValueError)."""
        module, _, cls = self.name.rpartition(".")
        if (module.startswith("transformers.") and cls[:1].isupper() and isinstance(self.args, tuple)
                and len(self.args) == 1 and isinstance(self.args[0], (str, int, float))):
            return self.args[0]
        raise ValueError(self.name)


_PUSH_VALUE = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_PUSH_ARG = ("BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE", "BININT", "BININT1", "BININT2", "INT",
             "LONG", "LONG1", "LONG4", "BINFLOAT", "FLOAT", "BINSTRING", "SHORT_BINSTRING", "BINBYTES",
             "SHORT_BINBYTES", "BINBYTES8")


def _opcode_walk(data: bytes):
    """Follow a pickle's opcodes far enough to see its plain values; nothing is imported or called.
    Returns the value STOP would return (objects as :class:`_Opaque`). Raises ValueError on an opcode this
    walk does not follow (the caller then reads nothing from the file)."""
    stack: list = []
    marks: list[int] = []
    memo: dict = {}

    def pop_mark() -> list:
        start = marks.pop()
        items = stack[start:]
        del stack[start:]
        return items

    for op, arg, _pos in pickletools.genops(data):
        name = op.name
        if name in ("PROTO", "FRAME"):
            continue
        if name in _PUSH_VALUE:
            stack.append(_PUSH_VALUE[name])
        elif name in _PUSH_ARG:
            stack.append(arg)
        elif name in ("GLOBAL", "INST"):
            stack.append(_Opaque(str(arg).replace(" ", ".")))
        elif name == "STACK_GLOBAL":
            attr, module = stack.pop(), stack.pop()
            stack.append(_Opaque(f"{module}.{attr}"))
        elif name == "MARK":
            marks.append(len(stack))
        elif name in ("EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "EMPTY_SET"):
            stack.append({"EMPTY_DICT": {}, "EMPTY_LIST": [], "EMPTY_TUPLE": (), "EMPTY_SET": []}[name])
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            items = tuple(stack[-n:])
            del stack[-n:]
            stack.append(items)
        elif name == "TUPLE":
            stack.append(tuple(pop_mark()))
        elif name in ("LIST", "DICT"):
            items = pop_mark()
            stack.append(items if name == "LIST" else dict(zip(items[::2], items[1::2])))
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo[arg])
        elif name == "SETITEM":
            value, key = stack.pop(), stack.pop()
            stack[-1][key] = value
        elif name == "SETITEMS":
            items = pop_mark()
            stack[-1].update(zip(items[::2], items[1::2]))
        elif name == "APPEND":   # pop first: ``stack[-1].append(stack.pop())`` would append to the item itself
            item = stack.pop()
            stack[-1].append(item)
        elif name in ("APPENDS", "ADDITEMS"):
            items = pop_mark()
            stack[-1].extend(items)
        elif name in ("REDUCE", "NEWOBJ"):
            args, func = stack.pop(), stack.pop()
            stack.append(_Opaque(getattr(func, "name", "?"), args))
        elif name == "NEWOBJ_EX":
            _kwargs, args, cls = stack.pop(), stack.pop(), stack.pop()
            stack.append(_Opaque(getattr(cls, "name", "?"), args))
        elif name == "BUILD":
            state = stack.pop()
            if isinstance(stack[-1], _Opaque):
                stack[-1].state = state
        elif name == "POP":
            stack.pop()
        elif name == "POP_MARK":
            pop_mark()
        elif name == "DUP":
            stack.append(stack[-1])
        elif name == "STOP":
            return stack.pop()
        else:
            raise ValueError(f"opcode {name} not followed")
    raise ValueError("no STOP opcode")


def _plain(value):
    """A value with no object inside (enum members as their value); raises ValueError otherwise."""
    if isinstance(value, _Opaque):
        return value.plain()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        raise ValueError("bytes")
    return value


def read_pickled_settings(path: str | Path) -> tuple[dict, list[str], str]:
    """The settings a ``training_args.bin`` stores as plain values, read WITHOUT unpickling it.

    ``path`` is a ``torch.save`` file (a zip with ``*/data.pkl``) or a bare pickle. Returns (settings:
    name -> number / text / bool / None / list / dict, not_read: the names held as other objects, note:
    "" or why nothing could be read: not a pickle, an opcode the walk does not follow).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                name = next((n for n in archive.namelist() if n.endswith("data.pkl")), None)
                if name is None:
                    return {}, [], f"{path}: a zip file without data.pkl; no settings read"
                raw = archive.read(name)
        top = _opcode_walk(raw)
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, zipfile.BadZipFile) as exc:
        return {}, [], f"{path}: cannot be read without running it ({exc}); no settings read"
    state = top.state if isinstance(top, _Opaque) else top
    if not isinstance(state, dict):
        return {}, [], f"{path}: holds no settings object that can be read without running it"
    settings, not_read = {}, []
    for key, value in state.items():
        try:
            settings[str(key)] = _plain(value)
        except (ValueError, TypeError):
            not_read.append(str(key))
    return settings, sorted(not_read), ""
