"""`python3 -m exactmark`: the command `exactmark` (exactmark/cli.py)."""

import sys

from exactmark.cli import main

sys.exit(main())
