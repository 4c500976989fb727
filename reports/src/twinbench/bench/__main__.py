"""`python -m twinbench.bench run FILE ...`: the twinbench-py command."""

import sys

from .cli import main

sys.exit(main())
