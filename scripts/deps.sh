#!/usr/bin/env bash
# Installs the Debian packages ndem needs, only those missing, after one
# `apt-get update`. Called by the Makefile; safe to run again.
#   scripts/deps.sh          what `make`, `make test` and `make run` need
#   scripts/deps.sh fuzz     plus clang's libFuzzer (`make fuzz`)
#   scripts/deps.sh lint     plus cppcheck and clang-format (`make lint`, `make format`)
#   scripts/deps.sh slurm    plus munge, Slurm's daemons and commands, slurmrestd (`make test-slurm`)
#   scripts/deps.sh slurm-client  plus Slurm's commands and munge only: what `ndemd --executor
#                            slurm` needs on a cluster's login node (the Dockerfile's NDEM_DEPS)
#   scripts/deps.sh validate plus gnuplot for the plots of `make validate`
#   scripts/deps.sh peers    plus LIGGGHTS and Open MPI's mpirun (`make bench-peers`)
#   scripts/deps.sh --print  prints the list instead
set -eu
# engine, job documents, command line, their tests; python3 for
# bench/make_scenes.py (checked by tests/cli_ndem.sh)
pkgs="build-essential pkg-config libcjson-dev check libsubunit-dev python3"
# particle shapes (core/shape.c, core/shape_collide.c): convex hulls by
# qhull (reentrant libqhull_r), the GJK overlap test of libccd
pkgs="$pkgs libqhull-dev libccd-dev"
# the Python client (clients/python) and tests/cli_python.sh: `python3 -m venv
# --system-site-packages` (python3-venv), then `pip install
# --no-build-isolation --no-index`, which builds with Debian's setuptools and wheel
pkgs="$pkgs python3-venv python3-pip python3-setuptools python3-wheel"
# VTK's own vtkXMLPolyDataReader (python3-vtk9) reads every .vtp that ndem
# writes in tests/cli_paraview.sh and tests/cli_archive.sh (about 40 MB to
# download, 210 MB installed beside the rest of this list)
pkgs="$pkgs python3-vtk9"
# ndemd: HTTP, WebSocket, SQLite; its tests: libcurl.
pkgs="$pkgs libmicrohttpd-dev libwebsockets-dev libsqlite3-dev libcurl4-openssl-dev"
# ndemd's bearer tokens: SHA-256 and constant-time comparison from libcrypto
pkgs="$pkgs libssl-dev"
# ndemd's job archive (GET /jobs/{id}/archive, server/targz.c) gzips with zlib
pkgs="$pkgs zlib1g-dev"
# `ndem run --report` loads libcurl.so.4 (above: libcurl4-openssl-dev brings the
# headers and the library; cli/curl_dl.c); tests/cli_slurm.sh and
# tests/slurm/test.sh drive ndemd with the curl command and find a run's
# process with pgrep
pkgs="$pkgs curl procps"
# `mpirun -np N ndem run JOB --mpi` (cli/mpi.c, built with pkg-config ompi-c);
# tests/cli_mpi.sh runs a 2-rank job
pkgs="$pkgs libopenmpi-dev openmpi-bin"
# web client (`make web`, its end-to-end test): Node.js and npm (kept when a
# Node.js with npm is installed already), Debian's Chromium for playwright-core.
command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
pkgs="$pkgs chromium"
print=0
for group in "$@"; do
  case "$group" in
    fuzz) pkgs="$pkgs clang libclang-rt-dev libomp-dev" ;;  # libFuzzer, sanitizer runtimes, clang's OpenMP
    lint) pkgs="$pkgs cppcheck clang-format" ;;
    slurm) pkgs="$pkgs slurm-wlm munge slurmrestd slurm-wlm-jwt-plugin" ;;  # slurmctld, slurmd, sbatch and friends, munged; Slurm's REST API and its JWT auth
    slurm-client) pkgs="$pkgs slurm-client munge" ;;  # sbatch, scontrol, scancel; munge authenticates them to slurmctld
    validate) pkgs="$pkgs gnuplot-nox" ;;  # docs/images/validation-*.png
    peers) pkgs="$pkgs liggghts openmpi-bin" ;;  # bench/peers.sh: LIGGGHTS 3.8, mpirun
    --print) print=1 ;;
    *) echo "deps: unknown group '$group' (fuzz, lint, slurm, slurm-client, validate, peers, --print)" >&2; exit 2 ;;
  esac
done
if [ "$print" = 1 ]; then echo "$pkgs"; exit 0; fi
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
