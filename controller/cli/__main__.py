"""`python -m controller.cli`: the same as the `sabot` command."""

import sys

from controller.cli import main

sys.exit(main())
