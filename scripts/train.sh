#!/usr/bin/env bash
# Trains a player from scratch with the default configuration (made for a
# 2-core CPU). Re-running it resumes the same run (runs/quick); stop it with
# Ctrl-C at any moment. Extra arguments go to `sumito train` (e.g. --fresh).
set -euo pipefail
cd "$(dirname "$0")/.."
# libgomp spin-waits for work by default, which starves the other threads of a
# small machine.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# libtorch for the network (downloaded once into .libtorch/).
bash scripts/setup-libtorch.sh
# `cargo run` builds the release binary first (once) and finds it wherever
# CARGO_TARGET_DIR points.
exec cargo run --release --quiet --bin sumito -- train --config configs/quick.toml --run-dir runs/quick "$@"
