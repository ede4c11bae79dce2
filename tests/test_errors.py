"""One user-facing error base and one cancellation type (explorer.core.errors); the worker words a
failure by the error's type, never by its text."""

import errno

import pytest

from explorer.core import errors
from explorer.core.models.window_settings import WindowSettingProblem, WindowSettingsError
from explorer.worker.train import describe_error, is_internal_error


def test_every_input_error_is_a_user_error_wherever_it_is_imported_from():
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.data.squad import SquadDataError
    from explorer.core.models.loading import ModelSourceError
    from explorer.core.qa.probe import ProbeError
    from explorer.core.training.checkpoints import CheckpointError
    from explorer.core.specs.train_config import ConfigError

    for cls in (ClassificationDataError, SquadDataError, ModelSourceError, ProbeError, CheckpointError,
                ConfigError, errors.TrainingDataError, errors.NonFiniteLoss):
        assert issubclass(cls, errors.UserError) and issubclass(cls, ValueError), cls
        assert cls.__module__ == "explorer.core.errors", cls
    assert issubclass(WindowSettingsError, errors.UserError)
    # the old RuntimeError bases are kept as second parents
    assert issubclass(ModelSourceError, RuntimeError) and issubclass(CheckpointError, RuntimeError)


def test_one_cancellation_type_that_except_exception_does_not_swallow():
    from explorer.core.qa.tau_study import StudyCancelled
    from explorer.worker.inspector import Cancelled as InspectorCancelled   # the inspector child's cancel

    assert StudyCancelled is errors.Cancelled and InspectorCancelled is errors.Cancelled
    assert not issubclass(errors.Cancelled, Exception)
    with pytest.raises(errors.Cancelled):
        try:
            raise errors.Cancelled()
        except Exception:  # noqa: BLE001 - the point: this must not catch it
            pytest.fail("Cancelled was swallowed by except Exception")


def test_window_settings_errors_come_from_features_as_their_own_type(tiny_qa):
    from explorer.core.qa.windows import prepare_qa_features

    with pytest.raises(WindowSettingsError, match="doc_stride"):
        prepare_qa_features(["Who?"], ["Ada was born in London."], tiny_qa.tokenizer, max_seq_length=64,
                            doc_stride=60, max_query_length=16)


@pytest.mark.parametrize("exc, expected, internal", [
    (errors.ConfigError("batch_size must be >= 1, got 0"), "batch_size must be >= 1, got 0", False),
    (WindowSettingsError([WindowSettingProblem("doc_stride", 60, 40, "doc_stride 60 leaves no passage room")]),
     "window settings do not fit the model: doc_stride 60 leaves no passage room", False),
    # a plain ValueError whose text *looks* like a settings message is still an internal error
    (ValueError("bad window settings: doc_stride=500"), "internal error ValueError: bad window settings: "
     "doc_stride=500", True),
    (errors.OutOfMemory("DefaultCPUAllocator: can't allocate memory"), "out of memory at step 3", False),
    (OSError(errno.ENOSPC, "No space left on device", "/runs/r/x"), "disk full while writing /runs/r/x", False),
    (KeyError("x"), "internal error KeyError: 'x'", True),
])
def test_describe_error_decides_by_type(exc, expected, internal):
    assert describe_error(exc, None, 3).startswith(expected)
    assert is_internal_error(exc) is internal


def test_allocator_failures_are_recognised_once_in_core():
    oom = errors.as_out_of_memory(RuntimeError("[enforce fail] DefaultCPUAllocator: can't allocate memory: 12 bytes"))
    assert isinstance(oom, errors.OutOfMemory) and "can't allocate memory" in str(oom)
    assert errors.as_out_of_memory(RuntimeError("mat1 and mat2 shapes cannot be multiplied")) is None
    assert errors.as_out_of_memory(ValueError("out of memory")) is None
