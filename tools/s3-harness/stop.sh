#!/usr/bin/env bash
# Stop the S3Mock server started by start.sh (SIGTERM, then SIGKILL after a grace period) and
# delete its data. Exits 0 if it was stopped or was not running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${S3MOCK_RUN_DIR:-$HERE/.run}"
PID_FILE="$RUN_DIR/s3mock.pid"
URL_FILE="$RUN_DIR/s3mock.url"
GRACE="${S3MOCK_STOP_TIMEOUT:-30}"
MARK="s3mock.jar"

log() { echo "s3-harness: $*" >&2; }

if [[ ! -f "$PID_FILE" ]]; then
  log "not running (no $PID_FILE)"
  exit 0
fi
pid="$(cat "$PID_FILE" 2>/dev/null || true)"

# Only signal the process if it really is our server (pid files can go stale).
if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null ||
  ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MARK"; then
  log "not running (stale pid file)"
  rm -f "$PID_FILE" "$URL_FILE"
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
rm -f "$PID_FILE" "$URL_FILE"
rm -rf "$RUN_DIR/data" "$RUN_DIR/tmp"
log "stopped (pid $pid) in $(($(date +%s) - t0)) s"
