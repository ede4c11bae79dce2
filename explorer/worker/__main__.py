"""`python -m explorer.worker ...` = `bert-explorer train ...`."""

import sys

from explorer.worker.train import main

if __name__ == "__main__":
    sys.exit(main())
