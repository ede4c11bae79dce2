"""The training side of each task: its head, data, features, loss, evaluation and watch probes.

A task is registered once, by its row in explorer.core.specs.tasks (``add_task_facts``); the row's ``trainer``
names the ``Task`` subclass that trains it ("module:Class"), and :func:`get_task` builds that class with the
task's name. Built in: ``squad_v1``, ``squad_v2`` (qa.QATask), ``single``, ``pair``
(classification.ClassificationTask), ``swag`` (multiple_choice.MultipleChoiceTask), ``regression``, ``multilabel``
(scores_and_label_sets.RegressionTask / MultiLabelTask), ``ner`` (tagging.TaggingTask). A new task with new
training behaviour adds its module here and names it in its row; the loop needs no change.
"""

from explorer.core.training.tasks.base import FeatureSet, Task, get_task, task_names
from explorer.core.training.tasks.classification import ClassificationTask
from explorer.core.training.tasks.multiple_choice import MultipleChoiceTask
from explorer.core.training.tasks.qa import QATask
from explorer.core.training.tasks.scores_and_label_sets import MultiLabelTask, RegressionTask
from explorer.core.training.tasks.tagging import TaggingTask

__all__ = ["FeatureSet", "Task", "get_task", "task_names", "ClassificationTask", "MultipleChoiceTask", "QATask",
           "RegressionTask", "MultiLabelTask", "TaggingTask"]
