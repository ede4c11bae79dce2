"""Other tools' run folders, read as runs: the reader table (:mod:`.base`) and one module per kind
(:mod:`.trainer_folder`: a Hugging Face Trainer output_dir or checkpoint-N; :mod:`.tensorboard_folder`: a folder
of TensorBoard event files).

Every module of this package is imported here, so a reader module registers itself
(``register_reader(RunReader(...))`` at its end) without a line in this file.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
