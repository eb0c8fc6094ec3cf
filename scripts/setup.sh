#!/usr/bin/env bash
# One-time setup on Debian 12 with Node 20: system tools (when missing), npm dependencies, build, migrate.
# Usage: npm run setup            (add --with-browser to also install Chromium for the browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us apertium apertium-eng-spa apertium-eng-cat
  rubberband-cli sox yt-dlp)
if [[ " $* " == *" --with-browser "* ]]; then
  APT_PACKAGES+=(chromium pocketsphinx-testdata)
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "Installing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "Need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("Node >= 20.19 required, found "+process.versions.node); process.exit(1) }'

# Dependency install scripts stay off (.npmrc): onnxruntime-node works without its CUDA download.
export ONNXRUNTIME_NODE_INSTALL=skip
npm install --no-audit --no-fund   # from package-lock.json (npm ci refuses it: see .ci/run)
npm run build
npm run migrate
echo "Setup done. Start the app with: npm start   (then open http://localhost:${PORT:-8080})"
