"""``python -m response_schema``: the same command line as ``response-schema``."""

import sys

from .cli import main

sys.exit(main())
