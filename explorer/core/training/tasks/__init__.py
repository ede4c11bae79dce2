"""Task registry: each task knows its head, data, features, loss, evaluation and watch probes.

Registered: ``squad_v1``, ``squad_v2`` (extractive QA), ``single``, ``pair`` (classification), ``swag``
(multiple choice), ``regression`` (one score, STS-B), ``multilabel`` (a sigmoid per label), ``ner`` (a tag per word).
Add one with a row in explorer.core.specs.tasks (its fixed facts) and a module in this package whose
``Task`` subclass registers itself (``register_task(MyTask(name))`` at the end of the module; see base.Task):
every module of the package is imported here, so the new module needs no line in this file, and the loop
needs no change.
"""

import importlib
import pkgutil

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

# Any other module of the package registers its own tasks when imported (a new task: its module, no line here).
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["FeatureSet", "Task", "get_task", "register_task", "task_names", "ClassificationTask", "MultipleChoiceTask", "QATask",
           "RegressionTask", "MultiLabelTask", "TaggingTask"]
