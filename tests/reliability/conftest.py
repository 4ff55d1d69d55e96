"""The reliability suite's helpers (``reliability_wire``) are imported from this folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
