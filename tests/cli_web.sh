#!/usr/bin/env bash
# End-to-end test of the browser client (web/) against a real ndemd:
# tests/web/e2e.mjs starts $NDEMD_BIN (the sanitizer build under `make test`,
# else build/release/ndemd) on free loopback ports with a temporary --data
# directory, drives Debian's Chromium headless with playwright-core, and stops
# the daemon. Screenshots and the daemon's log go to build/web-test/.
set -eu
cd "$(dirname "$0")/.."
ndemd=${NDEMD_BIN:-build/release/ndemd}
[ -x "$ndemd" ] || { echo "cli_web: no ndemd at $ndemd (make)"; exit 1; }
[ -f web/node_modules/playwright-core/package.json ] && [ -f web/vendor/three/three.module.js ] ||
  { echo "cli_web: the web client is not built (make web)"; exit 1; }
command -v node >/dev/null || { echo "cli_web: node is missing (scripts/deps.sh installs it)"; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "cli_web: no Chromium at ${CHROMIUM:-/usr/bin/chromium} (scripts/deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=build/web-test
rm -rf "$out" && mkdir -p "$out"
# the pure modules (frame reader, JSON Pointer locations, tar writer) first
node --test --test-reporter=dot tests/web/unit.test.mjs
# the whole test, daemon restarts included, stays well under two minutes
timeout 170 node tests/web/e2e.mjs --ndemd "$ndemd" --data "$tmp/data" --out "$out"
