#!/usr/bin/env bash
# Installs the Debian packages the app needs, when missing (apt-get; root or sudo).
#   --with-tests   also what the test suite needs: Chromium and openssl
#                  (the embedded-app browser tests serve their test admin page over https with a fresh certificate)
set -euo pipefail

# pocketsphinx-testdata: its LibriVox recordings are the speech of the demo project (npm run demo:build).
pkgs=(ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us pocketsphinx-testdata apertium apertium-eng-spa apertium-eng-cat
  rubberband-cli sox yt-dlp)
if [[ " $* " == *" --with-tests "* ]]; then
  # drascula-music: real recorded music under the speech in the separation tests and `npm run bench:quality`;
  # fb-music-high: a second kind of music (a tracker module) in the benchmark;
  # festival + festvox-us-slt-hts: a natural-sounding voice saying the customer-words clip (`npm run bench:asr`)
  pkgs+=(chromium openssl drascula-music fb-music-high festival festvox-us-slt-hts)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0

echo "Installing Debian packages: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "Need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
