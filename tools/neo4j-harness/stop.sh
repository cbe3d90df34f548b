#!/usr/bin/env bash
# Stop the Neo4j test server started by start.sh (SIGTERM, then SIGKILL after a grace period).
# Exits 0 if it was stopped or was not running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${NEO4J_RUN_DIR:-$HERE/.run}"
PID_FILE="$RUN_DIR/neo4j.pid"
URI_FILE="$RUN_DIR/neo4j.uri"
GRACE="${NEO4J_STOP_TIMEOUT:-60}"
MAIN=org.trelliscms.tools.neo4j.Launcher

log() { echo "neo4j-harness: $*" >&2; }

if [[ ! -f "$PID_FILE" ]]; then
  log "not running (no $PID_FILE)"
  exit 0
fi
pid="$(cat "$PID_FILE" 2>/dev/null || true)"

# Only signal the process if it really is our launcher (pid files can go stale).
if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null ||
  ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN"; then
  log "not running (stale pid file)"
  rm -f "$PID_FILE" "$URI_FILE"
  exit 0
fi

kill -TERM "$pid" 2>/dev/null || true
t0=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  if (($(date +%s) - t0 >= GRACE)); then
    log "pid $pid did not stop within ${GRACE}s; killing"
    kill -KILL "$pid" 2>/dev/null || true
    break
  fi
  sleep 0.2
done
rm -f "$PID_FILE" "$URI_FILE"
rm -rf "$RUN_DIR/tmp"
log "stopped (pid $pid) in $(($(date +%s) - t0)) s"
