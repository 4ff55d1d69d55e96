"""Makes the test-only ``vendor_rules`` package importable under pytest's importlib mode."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
