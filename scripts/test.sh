#!/usr/bin/env bash
# Runs every check of the project on a fresh machine: installs what is missing
# (idempotently), then formatting, lints and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# libgomp spin-waits for work by default, which starves the other threads of a
# small machine; tests and tools run many threads of their own.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

# Chromium, ChromeDriver and tmux for the browser and terminal tests,
# installed while the lints compile (a fresh machine spends most of that
# install waiting on the network and the package manager); only the tests
# need them.
tools_log=$(mktemp)
bash scripts/setup-test-tools.sh > "$tools_log" 2>&1 &
tools=$!
trap 'kill "$tools" 2> /dev/null || true; rm -f "$tools_log"' EXIT

# The crates the build needs, fetched while libtorch downloads.
cargo fetch > /dev/null 2>&1 &
fetch=$!
# libtorch for the network crate (downloaded once into .libtorch/).
bash scripts/setup-libtorch.sh
# A failed fetch is left to cargo's own commands below, which fetch again and
# say why.
wait "$fetch" || true

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings

if ! wait "$tools"; then
    cat "$tools_log" >&2
    echo "error: scripts/setup-test-tools.sh failed (its output is above)" >&2
    exit 1
fi
cat "$tools_log" >&2
# ONNX Runtime from PyPI in .venv-onnx/, with which the export test loads
# model.onnx (tests/e2e/onnx.rs).
SUMITO_ONNX_PYTHON="$(bash scripts/setup-onnx-check.sh)"
export SUMITO_ONNX_PYTHON
# Also builds the S3-compatible server the storage tests start on 127.0.0.1
# (crates/s3-test-server).
cargo test --workspace
