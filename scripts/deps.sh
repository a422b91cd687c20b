#!/usr/bin/env bash
# Installs the Debian packages ndem needs, only those missing, after one
# `apt-get update`. Called by the Makefile; safe to run again.
set -eu
pkgs="build-essential pkg-config libcjson-dev check libsubunit-dev"
case "${1:-}" in
  --print) echo "$pkgs"; exit 0 ;;
esac
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
