"""A process started like an MCP server over stdio that never answers the handshake: it writes
its process id to the file named by its first argument, then waits without reading or writing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

Path(sys.argv[1]).write_text(str(os.getpid()))
while True:  # ignores stdin closing: only a signal ends it
    time.sleep(60)
