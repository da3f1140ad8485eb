"""``python -m ldpomdp.cli``: the ``ldpomdp`` command."""

import sys

from . import main

sys.exit(main())
