"""The errors a user may see, and the one cancellation type (torch-free, Qt-free).

Every error caused by bad input (a setting, a data file, a model source, a checkpoint, a probe
request) derives from :class:`UserError`. Its message is written for the user: it names the file,
the record or line, the setting and the numbers. Whoever reports a failure (the training worker,
the CLI commands, the GUI) decides what to show by the error's *type*:

- a ``UserError``: show ``str(error)`` as it is (no traceback); besides the classes here,
  ``explorer.core.models.window_settings.WindowSettingsError`` (window settings that do not fit the model);
- :class:`OutOfMemory` / ``MemoryError`` / ``torch.OutOfMemoryError``: say which settings to lower;
- anything else: an internal error (type, message, and the traceback kept in the run's events).

``UserError`` derives from ``ValueError`` so that older ``except ValueError`` handlers keep working.
Errors that used to be ``RuntimeError`` (model source, checkpoint, non-finite loss) keep that base as
a second parent for the same reason.

:class:`Cancelled` is the single "the user asked to stop this work" signal, for the training loop
(SIGTERM / cancel), the dev-set τ study and the GUI's background jobs. It derives from
``BaseException`` (like ``KeyboardInterrupt``) so that library ``except Exception`` blocks do not
swallow it.
"""

from __future__ import annotations

import errno


class UserError(ValueError):
    """Bad input with a message written for the user (which file / record / setting, what was wrong)."""


class ConfigError(UserError):
    """A setting is missing or out of range; the message names the setting."""


class SquadDataError(UserError):
    """SQuAD data that cannot be loaded; the message names the file, the record (id or position) and what
    was wrong."""


class ClassificationDataError(UserError):
    """Bad classification data; the message names the file, the line or record, and what was wrong."""


class SwagDataError(UserError):
    """Bad multiple-choice (SWAG CSV) data; the message names the file, the line and what was wrong."""


class TaggingDataError(UserError):
    """Bad token-tagging (CoNLL / JSONL) data; the message names the file, the line and what was wrong."""


class TrainingDataError(UserError):
    """The data gave nothing to train on (e.g. no training windows after tokenization)."""


class ModelSourceError(UserError, RuntimeError):
    """The source cannot be loaded: missing folder, unreachable hub id, not a model, bad task."""


class CheckpointError(UserError, RuntimeError):
    """A checkpoint is missing or unreadable; the message names the folder."""


class DiskFullError(OSError):
    """A checkpoint could not be written because its disk is full (``errno`` ENOSPC); the message names the
    file, the free space and the size the write needed, and what to do. Not a UserError: a run that fails
    on it exits 1, as for any full disk, with this message instead of the bare OS one."""

    def __init__(self, message: str, filename: str = ""):
        super().__init__(errno.ENOSPC, message, filename or None)

    def __str__(self) -> str:
        return str(self.strerror)


class ProbeError(UserError):
    """The probe cannot run: empty question/passage, no tokenizer, or not a question-answering model."""


class EmbeddingError(UserError):
    """Embeddings cannot be made: the word never occurs in the corpus, an empty corpus, an unknown text
    column, a pooling the model lacks (no pooler), or two models that cannot be aligned."""


class NonFiniteLoss(UserError, RuntimeError):
    """The training loss (or gradient norm) became NaN or infinite; the message names the step and the
    learning rate."""


class RemoteHostError(UserError, RuntimeError):
    """A remote host (explorer.core.remote) cannot be used: the key was refused, it cannot be reached, the
    package is missing there, its disk is full; one sentence naming the host and what to do."""


class OutOfMemory(MemoryError):
    """The device ran out of memory; raised by core code that recognised an allocator failure."""


class Cancelled(BaseException):
    """The user asked to stop this work (cancel a run, a dev-set study, a background job).

    A BaseException, like KeyboardInterrupt, so that ``except Exception`` blocks do not swallow it.
    ``rows_written``: set by work that writes rows as it goes (predict_file) to the count in its file;
    ``rows_ahead``: the rows it ran after those and kept beside the file for a resume.
    """

    rows_written: int | None = None
    rows_ahead: int = 0


# Exit codes of every command (explorer.cli, the train worker): 0 done, 1 failed for another reason (internal
# error, out of memory, disk full), 2 the user's input (UserError), 143 a training run cancelled (SIGTERM).
EXIT_OK, EXIT_FAILED, EXIT_USER, EXIT_CANCELLED = 0, 1, 2, 143


def exits_on_user_error(run):
    """Decorate a command's ``run(args) -> int``: a :class:`UserError` it raises becomes ``error: <message>``
    on stderr and exit code EXIT_USER. The one place that maps user errors to an exit code; commands raise."""
    import functools
    import sys

    @functools.wraps(run)
    def wrapper(*args, **kwargs) -> int:
        try:
            return int(run(*args, **kwargs) or 0)
        except UserError as exc:
            try:
                sys.stderr.write(f"error: {str(exc).strip()}\n")
                sys.stderr.flush()
            except (OSError, ValueError):   # a closed terminal (SIGHUP: every write fails): the exit code says it
                pass
            return EXIT_USER
    return wrapper


def as_user_error(exc: BaseException, prefix: str = "") -> UserError:
    """``exc`` as a UserError to raise: itself when it is one (and no ``prefix``), else a UserError with
    its message (e.g. a ValueError of a library about the user's input), ``prefix`` in front."""
    if isinstance(exc, UserError) and not prefix:
        return exc
    return UserError(f"{prefix}{exc}")


def user_message(exc: BaseException) -> str | None:
    """The message to show for ``exc`` as it is, or None when it is not a user error."""
    return str(exc) if isinstance(exc, UserError) else None


# torch reports a failed CPU allocation only as a RuntimeError with this text (no type of its own);
# this is the one place that recognises it, so that callers can decide by type (OutOfMemory).
_ALLOCATOR_MESSAGES = ("out of memory", "can't allocate memory", "not enough memory")


def as_out_of_memory(exc: BaseException) -> OutOfMemory | None:
    """An :class:`OutOfMemory` for a RuntimeError that is an allocator failure, else None."""
    if isinstance(exc, RuntimeError) and any(m in str(exc).lower() for m in _ALLOCATOR_MESSAGES):
        first = (str(exc).splitlines() or [""])[0]
        return OutOfMemory(first)
    return None
