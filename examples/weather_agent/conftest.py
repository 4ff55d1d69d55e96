"""Lets `pytest` find `agent.py` beside the test under toolwire's `--import-mode=importlib`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
