#!/usr/bin/env bash
# Checks the CUDA path on a machine with an NVIDIA GPU and driver:
#   1. installs the CUDA libtorch (scripts/setup-libtorch.sh --cuda, idempotent);
#   2. runs the network's GPU tests (crates/net/src/cuda_checks.rs, ignored
#      elsewhere): forward passes, the batching service and training on the GPU,
#      each compared with the CPU;
#   3. runs `sumito bench net --device cuda` and checks with nvidia-smi that
#      the GPU's memory in use rises while it runs.
# Exits non-zero at the first failed check. Builds into target/cuda, so the
# CPU build in target/ is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-gpu: $*" >&2; exit 1; }

command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: this needs an NVIDIA GPU and its driver"
nvidia-smi -L

bash scripts/setup-libtorch.sh --cuda
export LIBTORCH="$PWD/.libtorch/cuda"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/cuda}"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

echo "== GPU tests of the network crate"
cargo test --release -p sumito-net --features cuda cuda_checks -- --ignored

echo "== sumito bench net --device cuda"
cargo build --release --features cuda
log="$CARGO_TARGET_DIR/bench-net-cuda.txt"
# GPU memory in use on GPU 0, in MiB. Compared before and during the bench
# (process ids are not compared: inside a container nvidia-smi shows the
# host's).
used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | tr -d ' '; }
before=$(used_mib)
"$CARGO_TARGET_DIR/release/sumito" bench net --device cuda >"$log" 2>&1 &
bench=$!
peak=$before
while kill -0 "$bench" 2>/dev/null; do
    now=$(used_mib)
    [ "$now" -gt "$peak" ] && peak=$now
    sleep 1
done
wait "$bench" || { cat "$log"; fail "sumito bench net --device cuda failed"; }
cat "$log"
grep -q "^device: cuda:0$" "$log" || fail "the bench did not run on cuda:0"
# The large preset alone holds 40 MB of weights; its batches far more.
[ "$((peak - before))" -ge 100 ] ||
    fail "GPU memory in use rose by only $((peak - before)) MiB during the bench: it did not use the GPU"
echo "check-gpu: GPU memory in use rose from $before to $peak MiB during the bench"
echo "check-gpu: all checks passed"
