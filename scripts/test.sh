#!/usr/bin/env bash
# Runs every check of the project on a fresh machine: installs what is missing
# (idempotently), then formatting, lints and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# libgomp spin-waits for work by default, which starves the other threads of a
# small machine; tests and tools run many threads of their own.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

# libtorch for the network crate (downloaded once into .libtorch/).
bash scripts/setup-libtorch.sh
# Chromium and ChromeDriver for the browser tests of `sumito serve`.
bash scripts/setup-browser.sh

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# Also builds the S3-compatible server the storage tests start on 127.0.0.1
# (crates/s3-test-server).
cargo test --workspace
