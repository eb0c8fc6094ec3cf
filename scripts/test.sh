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

timed "contract + web + server (PGlite) + pipeline" npx vitest run --project contract --project web --project server --project pipeline

if pg_up; then
  echo "== (PostgreSQL at $pg_url)"
  timed "server tests on PostgreSQL" env TEST_DB=pg npx vitest run --project server
elif [[ "${CI:-}" == "true" ]]; then
  echo "PostgreSQL is not reachable at $pg_url: CI requires it for the scale-out tests" >&2
  exit 1
else
  echo "!! PostgreSQL not reachable at $pg_url: the PostgreSQL run of the server tests was NOT done" >&2
fi

timed "browser tests (Chromium)" npx vitest run --project e2e
