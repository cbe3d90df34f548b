#!/usr/bin/env bash
# Start a throw-away Neo4j 5.26 Community server (neo4j-harness, in-process) on 127.0.0.1.
# Builds the launcher first if needed (Maven Central only), then waits for Bolt.
# On success prints the Bolt URI (only that) on stdout and exits 0.
# See README.md for the environment variables.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${NEO4J_RUN_DIR:-$HERE/.run}"
PID_FILE="$RUN_DIR/neo4j.pid"
LOG_FILE="$RUN_DIR/neo4j.log"
URI_FILE="$RUN_DIR/neo4j.uri"
BUILD_LOG="$RUN_DIR/build.log"
STAMP="$HERE/target/.build-stamp"
PORT="${NEO4J_BOLT_PORT:-7687}"
TIMEOUT="${NEO4J_START_TIMEOUT:-180}"
JAVA_OPTS_DEFAULT="-Xms256m -Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-OmitStackTraceInFastThrow \
 -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true -Dlog4j2.disable.jmx=true \
 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
 --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
# NEO4J_PROFILE=production: the JVM as a production Neo4j runs it (see README.md): C2 on (no
# TieredStopAtLevel), G1, a fixed heap and a larger page cache, Neo4j's own recommended flags.
# Slower to start; for benchmarks. NEO4J_JAVA_OPTS still wins when set.
JAVA_OPTS_PRODUCTION="-Xms${NEO4J_HEAP:-2g} -Xmx${NEO4J_HEAP:-2g} -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
 -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields -XX:+DisableExplicitGC \
 -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true -Dlog4j2.disable.jmx=true \
 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
 --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
PROFILE="${NEO4J_PROFILE:-test}"
case "$PROFILE" in
  test) JAVA_OPTS="${NEO4J_JAVA_OPTS:-$JAVA_OPTS_DEFAULT}" ;;
  production)
    JAVA_OPTS="${NEO4J_JAVA_OPTS:-$JAVA_OPTS_PRODUCTION}"
    export NEO4J_PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-1024}"
    ;;
  *) echo "neo4j-harness: NEO4J_PROFILE must be test or production, not $PROFILE" >&2; exit 2 ;;
esac
MAIN=org.trelliscms.tools.neo4j.Launcher

log() { echo "neo4j-harness: $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

is_our_launcher() {
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN"
}

fail() {
  log "$1"
  if [[ -f "$LOG_FILE" ]]; then
    log "---- last lines of $LOG_FILE ----"
    tail -n 60 "$LOG_FILE" >&2 || true
  fi
  exit 1
}

mkdir -p "$RUN_DIR" "$HERE/.run"
command -v flock >/dev/null || fail "flock not found (util-linux)"

# One start at a time per run dir (several sessions may share this work tree).
exec 9>"$RUN_DIR/start.lock"
if ! flock -n 9; then
  log "another start.sh is running for $RUN_DIR; waiting for it..."
  flock -w "$((TIMEOUT + 900))" 9 || fail "timed out waiting for $RUN_DIR/start.lock"
fi

# --- already running? ------------------------------------------------------
if [[ -f "$PID_FILE" ]]; then
  old_pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if is_our_launcher "$old_pid" && [[ -f "$URI_FILE" ]] && grep -q NEO4J_READY "$LOG_FILE" 2>/dev/null; then
    uri="$(cat "$URI_FILE")"
    if port_open "${uri##*:}"; then
      if [[ "${uri##*:}" != "$PORT" ]]; then
        fail "already running on $uri (pid $old_pid), not on port $PORT; run stop.sh first or use another NEO4J_RUN_DIR"
      fi
      log "already running (pid $old_pid)"
      echo "$uri"
      exit 0
    fi
  fi
  if is_our_launcher "$old_pid"; then
    log "stopping stale launcher (pid $old_pid)"
    "$HERE/stop.sh" >&2 || true
  fi
  rm -f "$PID_FILE" "$URI_FILE"
fi

# --- build if needed (idempotent) ------------------------------------------
needs_build=0
if [[ ! -f "$STAMP" || ! -d "$HERE/target/dependency" ]]; then
  needs_build=1
elif [[ -n "$(find "$HERE/pom.xml" "$HERE/src" -newer "$STAMP" -print -quit)" ]]; then
  needs_build=1
fi
if [[ "$needs_build" == 1 ]]; then
  # Builds are serialised across run dirs: they share target/.
  exec 8>"$HERE/.run/build.lock"
  flock -w 900 8 || fail "timed out waiting for $HERE/.run/build.lock"
fi
if [[ "$needs_build" == 1 && -f "$STAMP" && -z "$(find "$HERE/pom.xml" "$HERE/src" -newer "$STAMP" -print -quit)" ]]; then
  needs_build=0 # someone else built it while we waited for the lock
fi
if [[ "$needs_build" == 1 ]]; then
  command -v mvn >/dev/null || fail "mvn not found (need Maven 3.8+ and Java 17+)"
  log "building launcher with Maven (the first build downloads ~150 MB from Maven Central)..."
  t0=$(date +%s)
  if ! mvn -B -q -Dstyle.color=never -f "$HERE/pom.xml" package >"$BUILD_LOG" 2>&1; then
    log "build failed; last lines of $BUILD_LOG:"
    tail -n 40 "$BUILD_LOG" >&2 || true
    exit 1
  fi
  touch "$STAMP"
  log "built in $(($(date +%s) - t0)) s"
fi
exec 8>&- # release the build lock (no-op if not taken)

# --- start -------------------------------------------------------------------
command -v java >/dev/null || fail "java not found (need Java 17+)"
if port_open "$PORT"; then
  fail "port 127.0.0.1:$PORT is already in use (set NEO4J_BOLT_PORT to another port)"
fi

: >"$LOG_FILE"
# shellcheck disable=SC2086  # JAVA_OPTS is intentionally word-split
# The JVM's temp files (the store's default parent dir, log4j's config) go under the run dir,
# which stop.sh clears: nothing is left in the system temp dir.
JAVA_TMP="$RUN_DIR/tmp"
rm -rf "$JAVA_TMP" && mkdir -p "$JAVA_TMP"
NEO4J_BOLT_PORT="$PORT" nohup java $JAVA_OPTS "-Djava.io.tmpdir=$JAVA_TMP" -cp "$HERE/target/classes:$HERE/target/dependency/*" "$MAIN" \
  >>"$LOG_FILE" 2>&1 </dev/null 8>&- 9>&- &
pid=$!
echo "$pid" >"$PID_FILE"
log "started pid $pid, waiting up to ${TIMEOUT}s for Bolt on 127.0.0.1:$PORT (log: $LOG_FILE)"

t0=$(date +%s)
while :; do
  if grep -q '^NEO4J_READY ' "$LOG_FILE" 2>/dev/null; then
    uri="$(grep -m1 '^NEO4J_READY ' "$LOG_FILE" | awk '{print $2}')"
    if port_open "${uri##*:}"; then
      echo "$uri" >"$URI_FILE"
      log "ready in $(($(date +%s) - t0)) s"
      echo "$uri"
      exit 0
    fi
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PID_FILE"
    fail "launcher exited before becoming ready"
  fi
  if (($(date +%s) - t0 >= TIMEOUT)); then
    kill -TERM "$pid" 2>/dev/null || true
    sleep 5
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    fail "timed out after ${TIMEOUT}s waiting for NEO4J_READY"
  fi
  sleep 0.5
done
