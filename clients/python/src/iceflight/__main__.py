"""``python -m iceflight``: the same as the ``iceflight`` command."""

import sys

from .cli import main

sys.exit(main())
