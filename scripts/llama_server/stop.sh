#!/usr/bin/env bash
# Stop the llama-server that start.sh started, by the pid it recorded (TERM, then KILL after 10 s).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"
[ -f "$STATE_DIR/pid" ] || exit 0
PID=$(cat "$STATE_DIR/pid")
if kill -0 "$PID" 2>/dev/null; then
  kill -TERM "$PID" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$PID" 2>/dev/null && kill -KILL "$PID" 2>/dev/null
fi
rm -f "$STATE_DIR/pid" "$STATE_DIR/port"
exit 0
