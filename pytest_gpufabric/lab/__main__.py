"""Entry point of ``python -m pytest_gpufabric.lab``."""

from __future__ import annotations

import sys

from pytest_gpufabric.lab.cli import main

sys.exit(main())
