"""Torch threads: each process of the app gets the cores the machine's load leaves free, by its role."""

import os

import pytest

from explorer.core.errors import UserError
from explorer.core.threads import INSPECTOR, TRAINING, choose_threads


@pytest.mark.parametrize("role, cores, load, expected", [
    (INSPECTOR, 2, 0.2, 1),     # an idle 2-core machine: a whole core is free, not two
    (INSPECTOR, 2, 0.0, 2),
    (INSPECTOR, 2, 8.5, 1),     # oversubscribed: one thread, never waiting on a second without a core
    (INSPECTOR, 16, 3.5, 12),
    (TRAINING, 2, 0.2, 2),      # throughput: a core that is nearly free counts
    (TRAINING, 2, 0.7, 1),
    (TRAINING, 2, 9.0, 1),
    (TRAINING, 8, None, 8),     # load unknown (Windows): all cores
    (TRAINING, 4, -1.0, 4),
])
def test_threads_follow_the_free_cores_by_role(role, cores, load, expected):
    choice = choose_threads(role, cores, load)
    assert choice.threads == expected and choice.source == "policy"


def test_the_inspector_never_gets_more_threads_than_training():
    for cores in (1, 2, 4, 16):
        for tenth in range(0, 200, 3):
            load = tenth / 10
            assert 1 <= choose_threads(INSPECTOR, cores, load).threads <= choose_threads(TRAINING, cores, load).threads <= cores


def test_an_environment_variable_overrides_the_policy():
    choice = choose_threads(INSPECTOR, 2, 9.0, {"EXPLORER_TORCH_THREADS": "3"})
    assert (choice.threads, choice.source) == (3, "EXPLORER_TORCH_THREADS")
    assert "EXPLORER_TORCH_THREADS" in choice.describe()
    assert choose_threads(TRAINING, 2, 9.0, {"OMP_NUM_THREADS": "2"}).threads == 2
    assert choose_threads(TRAINING, 2, 9.0, {"EXPLORER_TORCH_THREADS": "", "OMP_NUM_THREADS": ""}).threads == 1


@pytest.mark.parametrize("value", ["two", "0", "-1", "1.5"])
def test_a_bad_override_is_refused_with_its_name(value):
    with pytest.raises(UserError, match="EXPLORER_TORCH_THREADS"):
        choose_threads(TRAINING, 2, 0.0, {"EXPLORER_TORCH_THREADS": value})


def test_an_unknown_role_is_refused():
    with pytest.raises(ValueError, match="unknown role"):
        choose_threads("gui", 2, 0.0)


def test_the_choice_says_the_load_and_cores():
    assert choose_threads(TRAINING, 2, 8.14).describe() == "1 thread (load 8.1 on 2 cores)"
    assert choose_threads(TRAINING, 8, None).describe() == "8 threads (8 cores)"


def test_the_device_text_says_the_threads():
    from explorer.ui.launch.device import describe

    assert describe({"device": "CPU", "count": 2, "inspect_threads": 1, "precision": "fp32"}) == \
        "CPU (2 threads, inspector 1) · fp32"
    assert describe({"device": "CPU", "count": 1, "inspect_threads": 1, "precision": "fp32"}) == "CPU (1 thread) · fp32"


def test_a_worker_applies_the_policy_to_torch(monkeypatch):
    import torch

    from explorer.worker.threads import apply_thread_policy

    before = torch.get_num_threads()
    monkeypatch.setenv("EXPLORER_TORCH_THREADS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    try:
        assert apply_thread_policy(TRAINING).threads == 1
        assert torch.get_num_threads() == 1
        assert os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(before)


def test_fewer_threads_than_cores_say_why():
    """'device: CPU (1 thread)' on a 2-core machine read as the app limiting itself for no reason: the count the
    policy chose under load says the cores and the load, an override names its variable, all cores say no more."""
    from explorer.ui.launch.device import describe

    busy = choose_threads(TRAINING, 2, 1.6)
    assert busy.summary() == "1 of 2 threads: the machine is busy, load 1.6"
    assert choose_threads(TRAINING, 2, 0.2).summary() == "2 threads"
    assert choose_threads(TRAINING, 4, 0.0, {"EXPLORER_TORCH_THREADS": "1"}).summary() == \
        "1 of 4 threads: EXPLORER_TORCH_THREADS"
    info = {"device": "CPU", "count": busy.threads, "inspect_threads": 1, "threads_said": busy.summary(),
            "precision": "fp32"}
    assert describe(info) == "CPU (1 of 2 threads: the machine is busy, load 1.6) · fp32"
