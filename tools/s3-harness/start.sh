#!/usr/bin/env bash
# Start a throw-away S3-compatible server (Adobe S3Mock 4.11.0, from Maven Central) on 127.0.0.1.
# Fetches the jar with Maven first if needed, then waits until the S3 API answers.
# On success prints the endpoint URL (only that) on stdout and exits 0. Idempotent.
# See README.md for the environment variables.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${S3MOCK_RUN_DIR:-$HERE/.run}"
PID_FILE="$RUN_DIR/s3mock.pid"
LOG_FILE="$RUN_DIR/s3mock.log"
URL_FILE="$RUN_DIR/s3mock.url"
BUILD_LOG="$RUN_DIR/build.log"
JAR="$HERE/target/s3mock.jar"
STAMP="$HERE/target/.build-stamp"
PORT="${S3MOCK_PORT:-9090}"
TIMEOUT="${S3MOCK_START_TIMEOUT:-120}"
BUCKETS="${S3MOCK_BUCKETS:-}"
JAVA_OPTS="${S3MOCK_JAVA_OPTS:--Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
MARK="s3mock.jar"

log() { echo "s3-harness: $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

is_ours() {
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MARK"
}

# The S3 API answers ListBuckets (any credentials are accepted).
answers() { curl -fsS -o /dev/null --max-time 5 "$1/" 2>/dev/null; }

fail() {
  log "$1"
  if [[ -f "$LOG_FILE" ]]; then
    log "---- last lines of $LOG_FILE ----"
    tail -n 40 "$LOG_FILE" >&2 || true
  fi
  exit 1
}

mkdir -p "$RUN_DIR" "$HERE/.run"
command -v flock >/dev/null || fail "flock not found (util-linux)"
command -v curl >/dev/null || fail "curl not found"

# One start at a time per run dir.
exec 9>"$RUN_DIR/start.lock"
if ! flock -n 9; then
  log "another start.sh is running for $RUN_DIR; waiting for it..."
  flock -w "$((TIMEOUT + 600))" 9 || fail "timed out waiting for $RUN_DIR/start.lock"
fi

# --- already running? ------------------------------------------------------
if [[ -f "$PID_FILE" ]]; then
  old_pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if is_ours "$old_pid" && [[ -f "$URL_FILE" ]]; then
    url="$(cat "$URL_FILE")"
    if answers "$url"; then
      if [[ "${url##*:}" != "$PORT" ]]; then
        fail "already running on $url (pid $old_pid), not on port $PORT; run stop.sh first or use another S3MOCK_RUN_DIR"
      fi
      log "already running (pid $old_pid)"
      echo "$url"
      exit 0
    fi
  fi
  if is_ours "$old_pid"; then
    log "stopping stale server (pid $old_pid)"
    "$HERE/stop.sh" >&2 || true
  fi
  rm -f "$PID_FILE" "$URL_FILE"
fi

# --- fetch the jar if needed (idempotent) ------------------------------------
if [[ ! -f "$STAMP" || ! -f "$JAR" || "$HERE/pom.xml" -nt "$STAMP" ]]; then
  exec 8>"$HERE/.run/build.lock"
  flock -w 900 8 || fail "timed out waiting for $HERE/.run/build.lock"
  if [[ ! -f "$STAMP" || ! -f "$JAR" || "$HERE/pom.xml" -nt "$STAMP" ]]; then
    command -v mvn >/dev/null || fail "mvn not found (need Maven 3.8+ and Java 17+)"
    log "fetching S3Mock with Maven (the first run downloads about 60 MB from Maven Central)..."
    t0=$(date +%s)
    if ! mvn -B -q -Dstyle.color=never -f "$HERE/pom.xml" package >"$BUILD_LOG" 2>&1; then
      log "build failed; last lines of $BUILD_LOG:"
      tail -n 40 "$BUILD_LOG" >&2 || true
      exit 1
    fi
    touch "$STAMP"
    log "fetched in $(($(date +%s) - t0)) s"
  fi
  exec 8>&-
fi

# --- start -------------------------------------------------------------------
command -v java >/dev/null || fail "java not found (need Java 17+)"
if port_open "$PORT"; then
  fail "port 127.0.0.1:$PORT is already in use (set S3MOCK_PORT to another port)"
fi

DATA_DIR="$RUN_DIR/data"
rm -rf "$DATA_DIR"
mkdir -p "$DATA_DIR"
url="http://127.0.0.1:$PORT"
: >"$LOG_FILE"
# HTTPS (S3Mock's second connector) goes to a free port the OS picks; only HTTP is used.
# shellcheck disable=SC2086  # JAVA_OPTS is intentionally word-split
# The JVM's temp files (Tomcat's work dir) go under the run dir, which stop.sh clears.
JAVA_TMP="$RUN_DIR/tmp"
rm -rf "$JAVA_TMP" && mkdir -p "$JAVA_TMP"
nohup java $JAVA_OPTS "-Djava.io.tmpdir=$JAVA_TMP" -jar "$JAR" \
  --server.port=0 --server.address=127.0.0.1 \
  --com.adobe.testing.s3mock.httpPort="$PORT" \
  --com.adobe.testing.s3mock.store.root="$DATA_DIR" \
  --com.adobe.testing.s3mock.store.retainFilesOnExit=false \
  --com.adobe.testing.s3mock.store.initialBuckets="$BUCKETS" \
  --spring.main.banner-mode=off \
  >>"$LOG_FILE" 2>&1 </dev/null 8>&- 9>&- &
pid=$!
echo "$pid" >"$PID_FILE"
log "started pid $pid, waiting up to ${TIMEOUT}s for $url (log: $LOG_FILE)"

t0=$(date +%s)
while :; do
  if answers "$url"; then
    echo "$url" >"$URL_FILE"
    log "ready in $(($(date +%s) - t0)) s"
    echo "$url"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PID_FILE"
    fail "server exited before becoming ready"
  fi
  if (($(date +%s) - t0 >= TIMEOUT)); then
    kill -TERM "$pid" 2>/dev/null || true
    sleep 5
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    fail "timed out after ${TIMEOUT}s waiting for $url"
  fi
  sleep 0.5
done
