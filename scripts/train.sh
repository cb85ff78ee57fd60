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
# Both binaries: `sumito` hands training to `sumito-torch` beside it (a
# `cargo run --bin sumito` would build only the first).
cargo build --release --quiet --bins
exec "${CARGO_TARGET_DIR:-target}/release/sumito" train --config configs/quick.toml --run-dir runs/quick "$@"
