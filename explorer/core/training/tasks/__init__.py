"""Task registry: each task knows its head, data, features, loss, evaluation and watch probes.

Registered: ``squad_v1``, ``squad_v2`` (extractive QA), ``single``, ``pair`` (classification), ``swag``
(multiple choice), ``regression`` (one score, STS-B), ``multilabel`` (a sigmoid per label), ``ner`` (a tag per word).
Add one with a row in explorer.core.task_facts (its fixed facts) and ``register_task(MyTask(name))``
(see base.Task); the loop needs no change.
"""

from explorer.core.training.tasks.base import FeatureSet, Task, get_task, register_task, task_names
from explorer.core.training.tasks.classification import ClassificationTask
from explorer.core.training.tasks.multiple_choice import MultipleChoiceTask
from explorer.core.training.tasks.qa import QATask
from explorer.core.training.tasks.scores_and_label_sets import MultiLabelTask, RegressionTask
from explorer.core.training.tasks.tagging import TaggingTask

register_task(QATask("squad_v1"))
register_task(QATask("squad_v2"))
register_task(ClassificationTask("single"))
register_task(ClassificationTask("pair"))
register_task(MultipleChoiceTask("swag"))
register_task(RegressionTask("regression"))
register_task(MultiLabelTask("multilabel"))
register_task(TaggingTask("ner"))

__all__ = ["FeatureSet", "Task", "get_task", "register_task", "task_names", "ClassificationTask", "MultipleChoiceTask", "QATask",
           "RegressionTask", "MultiLabelTask", "TaggingTask"]
