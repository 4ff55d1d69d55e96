#!/usr/bin/env bash
# The live suite in one command: build llama-server (cached), fetch the model (cached), start the
# server on a free loopback port, run tests/live against it, stop the server by its pid (also when
# the tests fail or the script is interrupted). A skipped live test is a failure here.
# Extra arguments go to pytest (e.g. --toolwire-record to rewrite tests/cassettes/llama_server/).
# Prints each phase's time at the end.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

t0=$(date +%s)
bash "$HERE/build.sh" >/dev/null
t1=$(date +%s)
bash "$HERE/fetch_model.sh" >/dev/null
t2=$(date +%s)

TOOLWIRE_LLAMA_STATE="$(mktemp -d "${TMPDIR:-/tmp}/toolwire-llama-XXXXXX")"
export TOOLWIRE_LLAMA_STATE
cleanup() {
  bash "$HERE/stop.sh" || true
  if [ -f "$TOOLWIRE_LLAMA_STATE/server.log" ] && [ "${LIVE_RC:-1}" -ne 0 ]; then
    echo "--- llama-server log (last 40 lines) ---" >&2
    tail -40 "$TOOLWIRE_LLAMA_STATE/server.log" >&2 || true
  fi
  rm -rf "$TOOLWIRE_LLAMA_STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

URL="$(bash "$HERE/start.sh" | tail -1)"
t3=$(date +%s)

cd "$ROOT"
JUNIT="$TOOLWIRE_LLAMA_STATE/junit.xml"
LIVE_RC=0
TOOLWIRE_LIVE_BASE_URL="$URL" TOOLWIRE_LIVE_REQUIRED=1 \
  uv run pytest tests/live -q -p no:cacheprovider --junitxml="$JUNIT" "$@" || LIVE_RC=$?
t4=$(date +%s)
if [ "$LIVE_RC" -eq 0 ]; then  # the suite must have run: tests present, none skipped
  python3 - "$JUNIT" <<'PY' || LIVE_RC=1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
tests = sum(int(s.get("tests", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
if tests == 0 or skipped:
    print(f"live suite: {tests} tests, {skipped} skipped: the live suite must run every test", file=sys.stderr)
    sys.exit(1)
PY
fi
echo "live suite times: llama-server build $((t1 - t0))s, model $((t2 - t1))s, server start $((t3 - t2))s, tests $((t4 - t3))s"
exit "$LIVE_RC"
