"""``python -m runs.agentbench_live DIR``: the bundle as JSON on stdout (problems: stderr, exit 1)."""

import sys

from .convert import main

sys.exit(main())
