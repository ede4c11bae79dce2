"""Task registry: each task knows its head, data, features, loss, evaluation and watch probes.

Registered: ``squad_v1``, ``squad_v2`` (extractive QA), ``single``, ``pair`` (classification).
Add one with ``register_task(MyTask())`` (see base.Task); the loop needs no change.
"""

from explorer.core.training.tasks.base import FeatureSet, Task, get_task, register_task, task_names
from explorer.core.training.tasks.classification import ClassificationTask
from explorer.core.training.tasks.qa import QATask

register_task(QATask("squad_v1", "v1.1"))
register_task(QATask("squad_v2", "v2.0"))
register_task(ClassificationTask("single", pair=False))
register_task(ClassificationTask("pair", pair=True))

__all__ = ["FeatureSet", "Task", "get_task", "register_task", "task_names", "ClassificationTask", "QATask"]
