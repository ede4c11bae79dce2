"""The evaluation planner: cadence and dev sample from measured rates (fake rates, no timing)."""

import numpy as np
import pytest

from explorer.core.data.sample import sample_order
from explorer.core.training.eval_plan import (MIN_SAMPLE_ROWS, cadence_for, clock_text, evaluations_between,
                                              plan_evaluations)

# the tweet table's run: 2,478 dev rows, every 43 steps of batch 16, 1,394 steps; 16 windows/s training,
# 23 rows/s evaluating (a loaded machine); evaluations within a fifth of the wall time
TWEETS = dict(steps=1394, windows_per_step=16, train_rate=16.0, eval_rate=23.0, dev_total=2478, wanted_every=43,
              share=0.2)


def test_cadence_counts_the_loop_evaluations():
    assert evaluations_between(100, 10) == 9          # 10..90; the final one at 100 apart
    assert evaluations_between(101, 10) == 10
    assert evaluations_between(100, 0) == 0
    for steps, k in [(100, 3), (1394, 7), (50, 49), (10, 0)]:
        every = cadence_for(steps, k)
        assert evaluations_between(steps, every) <= k
        if every > 1:
            assert evaluations_between(steps, every - 1) > k     # the most frequent that fits


def test_large_dev_set_is_sampled_at_the_wanted_cadence_within_a_fifth():
    plan = plan_evaluations(**{**TWEETS, "train_rate": 40.0, "eval_rate": 100.0})   # a quiet machine
    assert plan.sampled and plan.dev_rows >= MIN_SAMPLE_ROWS and plan.eval_every == 43
    assert plan.eval_fraction <= 0.2 + 1e-9
    # everything at the wanted cadence on the whole dev set would be most of the run
    full = (evaluations_between(1394, 43) + 2) * 2478 / 100.0
    assert full > plan.train_seconds


def test_sample_too_small_for_the_cadence_evaluates_less_often():
    plan = plan_evaluations(**{**TWEETS, "wanted_every": 5})
    assert plan.dev_rows == MIN_SAMPLE_ROWS
    assert plan.eval_every > 5
    assert plan.eval_fraction <= 0.2 + 1e-9
    assert "not every 5" in plan.describe()


def test_small_dev_set_is_scored_whole_at_the_wanted_cadence():
    plan = plan_evaluations(**{**TWEETS, "dev_total": 300, "eval_rate": 300.0})
    assert not plan.sampled and plan.eval_every == 43
    assert "all 300 dev rows" in plan.describe()


def test_a_sample_of_most_dev_rows_plans_all_of_them():
    """A sample holding at least 80% of the dev rows saves little: the plan scores all of them, at the cadence the
    smaller sample would have had; a sample under 80% stays a sample."""
    from types import SimpleNamespace

    from explorer.core.training.eval_schedule import EvalSchedule

    tight = {**TWEETS, "steps": 400, "eval_rate": 20.0}
    for dev_total in (240, 250, 300):      # the sample can be no smaller than 200 rows
        plan = plan_evaluations(**{**tight, "dev_total": dev_total})
        assert plan.sampled == (dev_total == 300), dev_total
        assert plan.dev_rows == (200 if dev_total == 300 else dev_total)
    # a sample sized by the time it may take: about 740 of 1,000 rows stays one, about 850 becomes all 1,000
    fits = {rate: plan_evaluations(**{**TWEETS, "dev_total": 1000, "eval_rate": rate}) for rate in (75.0, 85.0)}
    assert fits[75.0].sampled and 700 < fits[75.0].dev_rows < 800 and fits[75.0].eval_every == 43
    assert not fits[85.0].sampled and fits[85.0].dev_rows == 1000 and "all 1,000 dev rows" in fits[85.0].describe()
    config = SimpleNamespace(eval_every=15, eval_share=0.15, full_dev_evals=False, seed=42, batch_size=32)
    for dev_total, sampled in ((250, False), (251, True)):   # before any plan: no probe of most of the rows either
        assert EvalSchedule(config, dev_total, sampleable=True).sampled == sampled


def test_full_dev_every_evaluation_fits_the_cadence_alone():
    plan = plan_evaluations(**{**TWEETS, "full_dev": True, "train_rate": 4.0})
    assert plan.dev_rows == 2478 and not plan.sampled
    assert plan.eval_every > 43 and plan.eval_fraction <= 0.2 + 1e-9
    assert "as asked" in plan.describe()


def test_final_evaluation_alone_over_the_share_is_said():
    plan = plan_evaluations(**{**TWEETS, "steps": 20})
    assert evaluations_between(20, plan.eval_every) == 0
    assert "before training and at the end only" in plan.describe()
    assert "over the 20% wanted" in plan.describe()


def test_estimate_adds_training_and_every_evaluation():
    plan = plan_evaluations(**TWEETS)
    train = 1394 * 16 / 16.0
    evals = plan.evaluations * plan.dev_rows / 23.0 + 2478 / 23.0
    assert plan.train_seconds == pytest.approx(train)
    assert plan.total_seconds == pytest.approx(train + evals)
    assert plan.evaluations == evaluations_between(1394, plan.eval_every) + 1


def test_the_whole_runs_time_is_labelled_as_an_estimate_from_the_rates_it_comes_from():
    """The plan line the run writes after its first steps (shown in Curves) says its whole-run time is an
    estimate, as every other time-left text does; the launcher's preview names past runs' rates instead."""
    plan = plan_evaluations(**TWEETS)
    assert f"Whole run about {clock_text(plan.total_seconds)} (estimate from the first steps): " in plan.describe()
    assert "(estimate from the rates of 2 past runs): " in plan.describe(estimated_from="the rates of 2 past runs")


def test_resumed_run_has_no_start_evaluation():
    a = plan_evaluations(**TWEETS)
    b = plan_evaluations(**TWEETS, start_evaluation=False)
    assert a.evaluations == evaluations_between(a.steps, a.eval_every) + 1
    assert b.evaluations == evaluations_between(b.steps, b.eval_every)


def test_bad_rates_are_refused():
    with pytest.raises(ValueError, match="rates"):
        plan_evaluations(**{**TWEETS, "eval_rate": 0})
    with pytest.raises(ValueError, match="share"):
        plan_evaluations(**{**TWEETS, "share": 1.0})


def test_every_prefix_of_the_sample_order_is_stratified():
    labels = [0] * 900 + [1] * 60 + [2] * 40
    order = sample_order(labels, len(labels), seed=3)
    assert sorted(order.tolist()) == list(range(1000))
    for k in (50, 200, 610):
        got = np.bincount(np.asarray(labels)[order[:k]], minlength=3)
        want = np.array([0.9, 0.06, 0.04]) * k
        assert np.all(np.abs(got - want) <= 1.0 + 1e-9), (k, got, want)
    assert np.array_equal(order, sample_order(labels, len(labels), seed=3))   # the same rows every time


def test_sample_order_without_classes_is_a_seeded_shuffle():
    order = sample_order([[0, 1], [1]] * 5, 10, seed=1)
    assert sorted(order.tolist()) == list(range(10))
    assert np.array_equal(order, sample_order(None, 10, seed=1))


def test_replanning_keeps_the_sample_and_adapts_the_cadence():
    first = plan_evaluations(**{**TWEETS, "train_rate": 40.0, "eval_rate": 100.0})
    slower = plan_evaluations(**{**TWEETS, "train_rate": 40.0, "eval_rate": 25.0}, fixed_rows=first.dev_rows)
    assert slower.dev_rows == first.dev_rows
    assert slower.eval_every > first.eval_every


def test_imbalance_rule_picks_macro_f1_for_automatic_best():
    from explorer.core.specs.tasks import automatic_metric_for_best, imbalanced_classes

    assert imbalanced_classes({"hate": 9, "none": 100}) == ("hate", "none")
    assert imbalanced_classes({"hate": 10, "none": 100}) is None
    assert imbalanced_classes({"only": 5}) is None
    assert automatic_metric_for_best("single", (), 2, {"hate": 9, "none": 100}) == "macro_f1"
    assert automatic_metric_for_best("single", (), 2, {"hate": 50, "none": 100}) == "accuracy"
    assert automatic_metric_for_best("regression", (), 0, {"a": 1, "b": 100}) == "pearson"


def test_what_each_evaluation_costs_besides_its_rows_counts_in_the_share():
    """SST-2 on the bundled encoder: 2,500 steps of 32 windows at 100 windows/s, 872 dev rows at 670 rows/s, each
    evaluation followed by 1.6 s of metrics and checkpoint saves. Planned on the rows' forward alone, evaluations
    and saves took about 35% of the wall time; with the overhead they keep to the share."""
    sst2 = dict(steps=2500, windows_per_step=32, train_rate=100.0, eval_rate=670.0, dev_total=872, wanted_every=14)
    bare = plan_evaluations(**sst2)
    costed = plan_evaluations(**sst2, overhead=1.6)
    true_fraction = ((bare.evaluations * (bare.dev_rows / 670.0 + 1.6) + 872 / 670.0 + 1.6)
                     / (bare.train_seconds + bare.evaluations * (bare.dev_rows / 670.0 + 1.6) + 872 / 670.0 + 1.6))
    assert true_fraction > 0.3                                  # what the run measured
    assert costed.eval_fraction <= 0.2 + 1e-9 and costed.eval_every > bare.eval_every
    assert costed.eval_seconds == pytest.approx(costed.evaluations * (costed.dev_rows / 670.0 + 1.6) + 872 / 670.0 + 1.6)
    assert plan_evaluations(**sst2, overhead=0.0) == bare


def test_a_dev_set_that_cannot_be_sampled_is_not_said_to_be_whole_as_asked():
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.eval_schedule import EvalSchedule

    def plan(**config):
        schedule = EvalSchedule(TrainConfig(train="t.json", eval_every=40, **config), 736, sampleable=False)
        schedule.timed(736, 100.0)
        return schedule.make_plan(steps=688, windows_per_step=16, train_rate=5.0).describe()

    assert "cannot be sampled" in plan() and "as asked" not in plan()           # SQuAD windows
    assert "as asked" in plan(full_dev_evals=True)


def test_a_cadence_changed_by_a_replan_is_written_to_the_runs_log():
    """The run's log (and so Curves, which shows its latest plan) says when a re-plan after an evaluation
    changes the cadence, to what and why; an unchanged cadence adds nothing."""
    from types import SimpleNamespace

    from explorer.core.training.eval_budget import plan_evaluations_now
    from explorer.core.training.eval_schedule import EvalSchedule

    config = SimpleNamespace(eval_every=15, eval_share=0.15, full_dev_evals=False, seed=42, batch_size=32)
    schedule = EvalSchedule(config, 300, sampleable=True)
    events = []
    run = SimpleNamespace(schedule=schedule, clock=SimpleNamespace(seconds=lambda: 20.0, pause=lambda: None),
                          progress=SimpleNamespace(step=10), plan={"effective_batch_size": 32}, wall=None,
                          config=config, planned_steps=lambda: 63,
                          writer=SimpleNamespace(emit=lambda kind, **f: events.append(f)))
    schedule.timed(100, 0.7)                     # the evaluation before training: 143 rows/s
    plan_evaluations_now(run)
    assert [e["topic"] for e in events] == ["eval_plan"] and schedule.eval_every == 15
    plan_evaluations_now(run)                    # the same rates: the same cadence, no second line
    assert len(events) == 1
    run.progress.step = 21
    schedule.timed(200, 1.6, overhead=9.0)       # the evaluation at step 21 and its saves took 10.6 s
    plan_evaluations_now(run)
    assert schedule.eval_every == 0 and len(events) == 2
    text = events[1]["message"]
    assert text.startswith("Evaluations re-planned after step 21: at the end only from now on, not every 15 steps")
    assert text.endswith("and evaluations may take at most 15% of the run.") and events[1]["topic"] == "eval_plan"
    assert text.count("every") == 1    # one sentence, one cadence named besides the new one


def test_sentences_whose_windows_follow_them_are_sampled_by_sentence_and_other_orders_are_not():
    """A tagging dev set can be sampled when each sentence's windows follow it in order: the first k sentences'
    features are then the first features (all windows of a long sentence); features in another order, or dev data
    that cannot be subset (QA windows), are evaluated whole and counted in features."""
    from explorer.core.data.conll import TaggingData
    from explorer.core.training.eval_schedule import can_sample, dev_rows_of
    from explorer.core.training.evaluation import head_features
    from explorer.core.training.tasks.base import FeatureSet

    words = [["a"], ["b", "c"], ["d"], ["e"]]
    dev = TaggingData("dev.txt", words, [["O"] * len(w) for w in words], [[1] * len(w) for w in words],
                      label_names=["O"])
    assert dev.subset([2, 0]).words == [["d"], ["a"]] and dev.head(2).words == [["a"], ["b", "c"]]
    windows = FeatureSet([3, 4, 4, 3, 3], lambda idx: {}, [0, 1, 1, 2, 3], raw=None)   # sentence 1: two windows
    assert can_sample(dev, windows) and dev_rows_of(dev, windows) == 4
    assert head_features(windows, 2).examples_of_rows == [0, 1, 1] and len(head_features(windows, 3)) == 4
    shuffled = FeatureSet([3, 4, 4, 3, 3], lambda idx: {}, [1, 0, 1, 2, 3], raw=None)
    assert not can_sample(dev, shuffled) and dev_rows_of(dev, shuffled) == 5
    missing = FeatureSet([3, 3, 3], lambda idx: {}, [0, 1, 3], raw=None)           # sentence 2 has no feature
    assert not can_sample(dev, missing)

    class Questions(list):    # examples without subset / head, as SQuAD's
        pass

    assert not can_sample(Questions("abcd"), windows) and dev_rows_of(Questions("abcd"), windows) == 5


def test_a_run_whose_dev_windows_do_not_follow_their_sentences_evaluates_the_whole_dev_set():
    """The run checks the order of the features it made: windows in sentence order give a sample of sentences
    (300 dev rows, the first 200 probed), windows in another order every window at every evaluation."""
    from types import SimpleNamespace

    from explorer.core.data.conll import TaggingData
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.setup import _dev_in_sample_order
    from explorer.core.training.tasks.base import FeatureSet

    words = [["w"] * (1 + i % 3) for i in range(300)]
    dev = TaggingData("dev.txt", words, [["O"] * len(w) for w in words], [[1] * len(w) for w in words],
                      label_names=["O"])

    def task(examples_of_rows):
        return SimpleNamespace(featurize=lambda ex, tok, cfg, train: FeatureSet(
            [4] * len(examples_of_rows(len(ex))), lambda idx: {}, examples_of_rows(len(ex))))

    config = TrainConfig(task="ner", train="t.txt", dev="d.txt", eval_every=10)
    in_order = task(lambda n: [0, 0] + list(range(1, n)))                # sentence 0 is two windows
    _, feats, schedule = _dev_in_sample_order(in_order, dev, None, config, False)
    assert len(feats) == 301 and schedule.sampleable and (schedule.dev_total, schedule.rows) == (300, 200)
    swapped = task(lambda n: [1, 0] + list(range(1, n)))
    _, feats, schedule = _dev_in_sample_order(swapped, dev, None, config, False)
    assert not schedule.sampleable and schedule.dev_total == schedule.rows == len(feats) == 301
