#!/usr/bin/env bash
# One-time setup on Debian 12 with Node 20: system tools (when missing), npm dependencies, build, migrate.
# Usage: npm run setup            (add -- --with-tests to also install what `npm test` needs)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/system-packages.sh "$@"

node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("Node >= 20.19 required, found "+process.versions.node); process.exit(1) }'

# Dependency install scripts stay off (.npmrc): onnxruntime-node works without its CUDA download.
export ONNXRUNTIME_NODE_INSTALL=skip
npm install --no-audit --no-fund   # from package-lock.json (npm ci refuses it: see .ci/run)
npm run build
npm run migrate
npm run demo:build   # the demo project's video, from the LibriVox clips of pocketsphinx-testdata
echo "Setup done. Start the app with: npm start   (then open http://localhost:${PORT:-8080})"
