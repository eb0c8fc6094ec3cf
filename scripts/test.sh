#!/usr/bin/env bash
# The whole test suite: types, contract, web, server (PGlite and PostgreSQL), pipeline (real media), browser.
set -euo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip
# Each part prints its elapsed time, and a summary of all parts ends the output (also after a failed part).
source scripts/timing.sh
trap 'timing_summary "npm test"' EXIT

# What the suite needs and a fresh machine may lack: system packages (Chromium, test clips) and npm packages.
timed "system packages" bash scripts/system-packages.sh --with-tests
[[ -d node_modules ]] || timed "npm install" npm install --no-audit --no-fund

pg_url="${TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
pg_up() { node -e "const {Client}=require('pg');const c=new Client({connectionString:process.argv[1]});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$pg_url"; }

build_quiet() { npm run build >/dev/null; }

timed "lint (ESLint import boundaries and cycles, knip unused code)" npm run lint

timed "type check" npx tsc --noEmit -p tsconfig.json

timed "build (both front-end builds)" build_quiet

# The server tests again on PostgreSQL (the scale-out database): required on CI, skipped with a warning elsewhere.
server_on_pg() {
  if pg_up; then
    echo "== (PostgreSQL at $pg_url)"
    echo "== server/db/schema.ts matches the migrations"
    DB_TYPES_URL="$pg_url" npm run --silent db:types -- --verify
    env TEST_DB=pg npx vitest run --project server
  elif [[ "${CI:-}" == "true" ]]; then
    echo "PostgreSQL is not reachable at $pg_url: CI requires it for the scale-out tests" >&2
    return 1
  else
    echo "!! PostgreSQL not reachable at $pg_url: the PostgreSQL run of the server tests was NOT done" >&2
  fi
}

# Vitest runs the files of these projects one at a time (fileParallelism is off: real media, timing figures), so on
# two cores the suite runs as two streams at once: the pipeline project (real media, scale-out) in one, contract,
# web and the server tests on PGlite then on PostgreSQL in the other. Each line is prefixed with its stream.
stream() {
  local tag=$1
  shift
  set -o pipefail
  "$@" 2>&1 | sed -u "s/^/[$tag] /"
}
unit_streams() {
  local rc1=0 rc2=0
  stream pipeline npx vitest run --project pipeline &
  local p1=$!
  stream server bash -c "$(declare -f pg_up server_on_pg); pg_url='$pg_url'; set -e; npx vitest run --project contract --project web --project server; server_on_pg" &
  local p2=$!
  wait "$p1" || rc1=$?
  wait "$p2" || rc2=$?
  ((rc1 == 0)) || echo "!! the pipeline tests failed (exit $rc1)" >&2
  ((rc2 == 0)) || echo "!! the contract, web or server tests failed (exit $rc2)" >&2
  ((rc1 == 0 && rc2 == 0))
}
timed "pipeline || contract + web + server (PGlite, then PostgreSQL)" unit_streams

timed "browser tests (Chromium)" npx vitest run --project e2e
