"""`python -m explorer ...` is the same as the `bert-explorer` console script."""

import sys

from explorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
