#!/usr/bin/env bash
# Start llama-server on 127.0.0.1 with a free port, wait for /health (polling, generous deadline),
# and print its base URL (http://127.0.0.1:PORT/v1) on the last line. The pid is in $STATE_DIR/pid;
# stop.sh stops it. Needs build.sh and fetch_model.sh to have run (run_live.sh does all of it).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

[ -x "$LLAMA_SERVER_BIN" ] || { echo "llama-server not built: run $HERE/build.sh" >&2; exit 1; }
[ -f "$MODEL_FILE" ] || { echo "model not fetched: run $HERE/fetch_model.sh" >&2; exit 1; }
mkdir -p "$STATE_DIR"
if [ -f "$STATE_DIR/pid" ] && kill -0 "$(cat "$STATE_DIR/pid")" 2>/dev/null; then
  echo "llama-server already running (pid $(cat "$STATE_DIR/pid")); stop.sh first" >&2
  exit 1
fi
PORT="${TOOLWIRE_LLAMA_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')}"
DEADLINE="${TOOLWIRE_LLAMA_HEALTH_DEADLINE:-180}"
start=$(date +%s)
# --jinja with a chat template that has a tool-call format: SmolLM2's own template has none (the
# tools never reach the prompt and "required" is not enforced), so smollm2-tools.jinja beside this
# script is used: the Qwen2.5 template llama.cpp ships (the same ChatML tokens as SmolLM2, and the
# Hermes 2 Pro tool-call format <tool_call>{json}</tool_call> that llama.cpp parses and constrains
# with a grammar), with tool results as their own "tool" turn (see the template's header).
# -np 1: one slot, so requests run one at a time and usage counts are per request.
TEMPLATE="$HERE/smollm2-tools.jinja"
[ -f "$TEMPLATE" ] || { echo "chat template missing: $TEMPLATE" >&2; exit 1; }
"$LLAMA_SERVER_BIN" -m "$MODEL_FILE" --host 127.0.0.1 --port "$PORT" --jinja --chat-template-file "$TEMPLATE" \
  -c 4096 -np 1 -t "${TOOLWIRE_LLAMA_THREADS:-2}" --no-webui \
  >"$STATE_DIR/server.log" 2>&1 &
PID=$!
echo "$PID" >"$STATE_DIR/pid"
echo "$PORT" >"$STATE_DIR/port"
until curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "llama-server exited before it was healthy; its log:" >&2
    tail -30 "$STATE_DIR/server.log" >&2
    rm -f "$STATE_DIR/pid"
    exit 1
  fi
  if [ $(( $(date +%s) - start )) -ge "$DEADLINE" ]; then
    echo "llama-server not healthy after ${DEADLINE}s; stopping it. Its log:" >&2
    tail -30 "$STATE_DIR/server.log" >&2
    "$HERE/stop.sh"
    exit 1
  fi
  sleep 0.5
done
echo "llama-server: healthy in $(( $(date +%s) - start ))s (pid $PID)" >&2
echo "http://127.0.0.1:$PORT/v1"
