#!/usr/bin/env bash
# Install matrix: each documented install command, run in a fresh environment, then a smoke test
# (scripts/smoke_install.py). Prints one table row per install; exits 1 if any row fails.
#
#   bash scripts/install_matrix.sh            # every row
#   ROWS="clone-uv wheel-uv" bash scripts/install_matrix.sh
#
# Rows: from a clone and from a git URL (git+file://, the repository itself) with pip and with uv;
# the core alone; the built wheels (uv build --all-packages) with pip and with uv; and the
# README's first command on the distribution Python (/usr/bin/python3, PEP 668) when present.
# uv rows use uv's cache and try --offline first. A pip row's environment gets the third-party
# dependencies from uv's cache first, and pip gets the build backend (hatchling) and uv from a
# wheelhouse downloaded once (PIP_NO_INDEX), so that pip, which would otherwise fetch them from the
# index for every build, only resolves, builds and installs toolwire's own distributions with the
# documented command; what is under test is that command, not PyPI. PREWARM=0 turns both off.
# Rows run JOBS at a time (default 2; JOBS=1 runs them one by one); the table keeps their order.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SMOKE="$ROOT/scripts/smoke_install.py"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/toolwire-matrix.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PY="${MATRIX_PYTHON:-python3}"
UV="$(command -v uv)"
export UV
COMMIT="$(git -C "$ROOT" rev-parse HEAD)"
GIT_URL="git+file://localhost$ROOT@$COMMIT"  # a host part: pip < 24 refuses "name @ git+file:///path"
ALL_ROWS="clone-pip clone-uv clone-uv-extras git-pip git-uv core-only wheel-pip wheel-uv readme-pep668"
ROWS="${ROWS:-$ALL_ROWS}"
JOBS="${JOBS:-2}"
ORDER=()

uvpip() {  # uv pip install into $VENV: offline from the cache first, then online
  "$UV" pip install --python "$VENV/bin/python" --offline -q "$@" 2>/dev/null \
    || "$UV" pip install --python "$VENV/bin/python" -q "$@"
}

pip_venv() {  # pip_venv VENV PREWARM-REQUIREMENTS...: a venv with pip; the dependencies from uv's cache
  local venv="$1"; shift
  "$PY" -m venv "$venv" || return 1
  if [ "${PREWARM:-1}" = 1 ]; then
    VENV="$venv" uvpip "$@" && "$UV" pip uninstall -q --python "$venv/bin/python" toolwire toolwire-openai toolwire-anthropic toolwire-gemini
  fi
}

row() {  # row NAME "COMMAND (as documented)" SMOKE-ARGS... ; the install itself is in $INSTALL
  local name="$1"; ORDER+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_row "$@" &
}

run_row() {  # writes the row's table line to $WORK/NAME.row
  local name="$1" shown="$2"; shift 2
  local log="$WORK/$name.log" start end status
  start=$(date +%s)
  if (set -e; eval "$INSTALL") >"$log" 2>&1 && "$VENV/bin/python" "$SMOKE" "$@" >>"$log" 2>&1; then
    status=ok
  else
    status=FAIL
    { echo "---- $name failed; last lines of its log:"; tail -25 "$log"; } >&2
  fi
  end=$(date +%s)
  printf '%-16s %-5s %4ss  %s\n' "$name" "$status" "$((end - start))" "$shown" >"$WORK/$name.row"
}

want() { [[ " $ROWS " == *" $1 "* ]]; }

if [ "${PREWARM:-1}" = 1 ] && { want clone-pip || want git-pip || want wheel-pip || want readme-pep668; }; then
  "$PY" -m pip download -q -d "$WORK/wheelhouse" "hatchling>=1.25" uv >"$WORK/wheelhouse.log" 2>&1 \
    || { echo "pip download of the build backend failed:" >&2; cat "$WORK/wheelhouse.log" >&2; exit 1; }
  export PIP_NO_INDEX=1 PIP_FIND_LINKS="$WORK/wheelhouse"
fi

if want wheel-pip || want wheel-uv; then
  (cd "$ROOT" && "$UV" build --all-packages -q -o "$WORK/dist" >"$WORK/build.log" 2>&1) \
    || { echo "uv build failed:" >&2; cat "$WORK/build.log" >&2; exit 1; }
  WHEEL_CORE="$(ls "$WORK"/dist/toolwire-*.whl)"
  WHEEL_OPENAI="$(ls "$WORK"/dist/toolwire_openai-*.whl)"
fi

if want clone-pip; then
  VENV="$WORK/clone-pip"
  INSTALL="cd $ROOT && pip_venv $VENV './[testing,cli]' ./adapters/openai ./adapters/gemini && $VENV/bin/pip install -q './[testing,cli]' ./adapters/openai"
  row clone-pip 'pip install "./[testing,cli]" ./adapters/openai' --providers openai,openai-chat --cli --testing --hint gemini
fi
if want clone-uv; then
  VENV="$WORK/clone-uv"; INSTALL="$UV venv -q --python $PY $VENV && cd $ROOT && uvpip './[testing,cli]' ./adapters/openai"
  row clone-uv 'uv pip install "./[testing,cli]" ./adapters/openai' --providers openai,openai-chat --cli --testing
fi
if want clone-uv-extras; then
  VENV="$WORK/clone-uv-extras"; INSTALL="$UV venv -q --python $PY $VENV && cd $ROOT && uvpip './[openai,testing,cli]'"
  row clone-uv-extras 'uv pip install "./[openai,testing,cli]"' --providers openai,openai-chat --cli --testing
fi
if want git-pip; then
  VENV="$WORK/git-pip"
  INSTALL="cd $ROOT && pip_venv $VENV './[testing,cli]' ./adapters/openai && $VENV/bin/pip install -q 'toolwire[testing,cli] @ $GIT_URL' 'toolwire-openai @ $GIT_URL#subdirectory=adapters/openai'"
  row git-pip 'pip install "toolwire[testing,cli] @ git+URL" "toolwire-openai @ git+URL#subdirectory=adapters/openai"' \
    --providers openai,openai-chat --cli --testing
fi
if want git-uv; then
  VENV="$WORK/git-uv"
  INSTALL="$UV venv -q --python $PY $VENV && uvpip 'toolwire[testing,cli] @ $GIT_URL' 'toolwire-openai @ $GIT_URL#subdirectory=adapters/openai'"
  row git-uv 'uv pip install "toolwire[testing,cli] @ git+URL" "toolwire-openai @ git+URL#subdirectory=adapters/openai"' \
    --providers openai,openai-chat --cli --testing --hint anthropic
fi
if want core-only; then
  VENV="$WORK/core-only"; INSTALL="$UV venv -q --python $PY $VENV && cd $ROOT && uvpip ."
  row core-only 'uv pip install .   (no extras, no adapter)' --providers ""
fi
if want wheel-pip; then
  VENV="$WORK/wheel-pip"
  INSTALL="cd $ROOT && pip_venv $VENV './[testing,cli]' ./adapters/openai && $VENV/bin/pip install -q '$WHEEL_CORE[testing,cli]' '$WHEEL_OPENAI'"
  row wheel-pip 'pip install "dist/toolwire-*.whl[testing,cli]" dist/toolwire_openai-*.whl' --providers openai,openai-chat --cli --testing
fi
if want wheel-uv; then
  VENV="$WORK/wheel-uv"; INSTALL="$UV venv -q --python $PY $VENV && uvpip '$WHEEL_CORE[testing,cli]' '$WHEEL_OPENAI'"
  row wheel-uv 'uv pip install "dist/toolwire-*.whl[testing,cli]" dist/toolwire_openai-*.whl' \
    --providers openai,openai-chat --cli --testing --hint anthropic
fi
if want readme-pep668; then
  if [ -x /usr/bin/python3 ] && ls /usr/lib/python3*/EXTERNALLY-MANAGED >/dev/null 2>&1 && /usr/bin/python3 -m venv --help >/dev/null 2>&1; then
    CLONE="$WORK/readme-clone"
    git clone -q "$ROOT" "$CLONE" && git -C "$CLONE" checkout -q "$COMMIT"
    VENV="$CLONE/.venv"
    # The README's first command, verbatim, with the distribution's python3 first on PATH.
    INSTALL="cd $CLONE && PATH=/usr/bin:\$PATH && $(sed -n 's/^\(python3 -m venv .uv .*\)$/\1/p' "$ROOT/README.md" | head -1)"
    row readme-pep668 "README first command, /usr/bin/python3 ($(/usr/bin/python3 --version 2>&1 | cut -d' ' -f2), EXTERNALLY-MANAGED)" \
      --providers anthropic,openai,openai-chat,gemini --cli --testing
  else
    printf '%-16s %-5s %4s   %s\n' readme-pep668 skip - 'no Debian python3 with venv and EXTERNALLY-MANAGED here' \
      >"$WORK/readme-pep668.row"
    ORDER+=(readme-pep668)
  fi
fi
wait

FAILED=0
printf '\n%-16s %-5s %5s  %s\n' row result time "install command"
for name in "${ORDER[@]}"; do
  if [ -s "$WORK/$name.row" ]; then cat "$WORK/$name.row"; else printf '%-16s FAIL  (no result)\n' "$name"; fi
  grep -q "^$name  *ok \|^$name  *skip " "$WORK/$name.row" 2>/dev/null || FAILED=1
done
exit "$FAILED"
