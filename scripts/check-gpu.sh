#!/usr/bin/env bash
# Checks the CUDA path on a machine with an NVIDIA GPU and driver:
#   1. installs the CUDA libtorch (scripts/setup-libtorch.sh --cuda, idempotent);
#   2. runs the network's GPU tests (crates/net/src/cuda_checks.rs, ignored
#      elsewhere): forward passes, the batching service and training on the GPU,
#      each compared with the CPU;
#   3. runs `sumito bench net --device cuda` and checks with nvidia-smi that
#      the GPU's memory in use rises while it runs;
#   4. measures self-play on the GPU: the quick config's network and search on
#      the GPU, with N drivers of 64 games sharing one inference service
#      (`sumito selfplay`, the run's own self-play worker; N = the cores less
#      4, at least 1, or $CHECK_GPU_WORKERS), and reports its positions/s and
#      the GPU's busy share, sampled by nvidia-smi every 200 ms while it runs.
# `--selfplay-only` runs the build and step 4 alone.
# Exits non-zero at the first failed check. Builds into target/cuda, so the
# CPU build in target/ is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-gpu: $*" >&2; exit 1; }

selfplay_only=false
case "${1:-}" in
    "") ;;
    --selfplay-only) selfplay_only=true ;;
    *) fail "unknown argument '$1' (usage: scripts/check-gpu.sh [--selfplay-only])" ;;
esac

command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: this needs an NVIDIA GPU and its driver"
nvidia-smi -L || fail "nvidia-smi finds no GPU (or no driver answers): this needs an NVIDIA GPU"

bash scripts/setup-libtorch.sh --cuda
export LIBTORCH="$PWD/.libtorch/cuda"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/cuda}"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

if ! $selfplay_only; then
echo "== GPU tests of the network crate"
cargo test --release -p sumito-net --features cuda cuda_checks -- --ignored
fi

cargo build --release --features cuda
sumito="$CARGO_TARGET_DIR/release/sumito"

if ! $selfplay_only; then
echo "== sumito bench net --device cuda"
log="$CARGO_TARGET_DIR/bench-net-cuda.txt"
# GPU memory in use on GPU 0, in MiB. Compared before and during the bench
# (process ids are not compared: inside a container nvidia-smi shows the
# host's).
used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | tr -d ' '; }
before=$(used_mib)
"$sumito" bench net --device cuda >"$log" 2>&1 &
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
fi

echo "== self-play on the GPU"
bash scripts/check-gpu-selfplay.sh "$sumito" cuda
echo "check-gpu: all checks passed"
