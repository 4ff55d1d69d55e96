"""The sensor experiment's checker: ``python check.py PROJECT``.

Runs the project's ``report.py`` and compares the mean it prints with the true mean of the
non-dropout readings, computed from the original CSV, which lives outside the project folder
(``toolwire.demo``'s data). A run that edited the CSV fails, whatever the report prints: the fix
belongs in the script. Exit status 0 is a pass.
"""

import sys
from pathlib import Path

from toolwire.demo import check

result = check(Path(sys.argv[1]))
print(result.summary())
sys.exit(0 if result.passed else 1)
