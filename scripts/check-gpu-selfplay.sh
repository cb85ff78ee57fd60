#!/usr/bin/env bash
# Self-play on a GPU, measured (the last step of scripts/check-gpu.sh):
#
#   scripts/check-gpu-selfplay.sh SUMITO [DEVICE]
#
# SUMITO is the sumito binary to measure (scripts/check-gpu.sh passes its
# CUDA build); DEVICE is the network's device, `cuda` (the default) or
# `cuda:N`, or `cpu` for the same measurement on the CPU to set beside it.
# The quick config's network and search, with N drivers of 64 games that
# share one inference service (N = the cores less 4, at least 1; or
# $CHECK_GPU_WORKERS), played by `sumito selfplay`, the run's own self-play
# worker, on a fresh run with a random network (its games last to the move
# limit, which costs the network and the search per position what a trained
# one's do) in $CARGO_TARGET_DIR/check-gpu-selfplay (target/ when unset), for
# 6 rounds of N x 64 games. Prints each round's positions/s, their median
# over the rounds after the first (which includes starting libtorch, CUDA and
# the model), and the GPU's busy share over those rounds: the mean of
# `nvidia-smi --query-gpu=utilization.gpu` sampled every 200 ms. Exits
# non-zero if self-play fails or, on a GPU, the GPU was never busy.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-gpu: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || fail "usage: scripts/check-gpu-selfplay.sh SUMITO [DEVICE]"
sumito=$1
device=${2:-cuda}
[ -x "$sumito" ] || fail "$sumito is not an executable file"
case "$device" in
    cuda) gpu=0 ;;
    cuda:[0-9]*) gpu=${device#cuda:} ;;
    cpu) gpu=0 ;;
    *) fail "unknown device '$device' (expected cuda, cuda:N or cpu)" ;;
esac
sampling=true
if ! command -v nvidia-smi >/dev/null; then
    [ "$device" = cpu ] || fail "nvidia-smi not found: self-play on $device needs an NVIDIA GPU and its driver"
    sampling=false
fi

cores=$(nproc)
workers=${CHECK_GPU_WORKERS:-$((cores > 5 ? cores - 4 : 1))}
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || fail "CHECK_GPU_WORKERS is '$workers', not a number of drivers"
rounds=6
games_per_round=$((workers * 64))
work="${CARGO_TARGET_DIR:-$PWD/target}/check-gpu-selfplay"
rm -rf "$work"
mkdir -p "$work"

# The quick config with N drivers, the device, one service batch of every
# driver's 64 games, and a budget of the rounds' games ([budget] is its
# last table).
config="$work/selfplay.toml"
[ "$(grep '^\[' configs/quick.toml | tail -n 1)" = "[budget]" ] ||
    fail "configs/quick.toml no longer ends with its [budget] table: update this script"
sed -e "s/^workers = 1 .*/workers = $workers/" \
    -e "s/^device = \"cpu\"/device = \"$device\"/" \
    -e "s/^max_batch = 64$/max_batch = $games_per_round/" \
    configs/quick.toml >"$config"
echo "games = $((rounds * games_per_round))" >>"$config"
for line in "workers = $workers" "device = \"$device\"" "max_batch = $games_per_round"; do
    grep -qx "$line" "$config" || fail "could not set '$line' in a copy of configs/quick.toml: update this script"
done

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# The run and its generation 0: the trainer makes them, then waits for
# games; it is stopped there, so that self-play has the GPU to itself.
run="$work/run"
"$sumito" trainer --no-progress --config "$config" --run-dir "$run" >"$work/trainer.txt" 2>&1 &
trainer=$!
pids+=("$trainer")
until grep -q "waiting for games" "$work/trainer.txt"; do
    kill -0 "$trainer" 2>/dev/null || { cat "$work/trainer.txt"; fail "sumito trainer ended before it made the run"; }
    sleep 0.2
done
kill -INT "$trainer"
wait "$trainer" || { cat "$work/trainer.txt"; fail "sumito trainer failed"; }

samples="$work/utilization.txt"
: >"$samples"
if $sampling; then
    nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 200 -i "$gpu" >"$samples" &
    pids+=("$!")
fi
log="$work/selfplay.txt"
"$sumito" selfplay --no-progress --run-dir "$run" >"$log" 2>&1 &
selfplay=$!
pids+=("$selfplay")
# The samples taken before the first round's line belong to the start.
first_sample=""
while kill -0 "$selfplay" 2>/dev/null; do
    if [ -z "$first_sample" ] && grep -q "^self-play with " "$log"; then
        first_sample=$(wc -l <"$samples")
    fi
    sleep 0.2
done
wait "$selfplay" || { cat "$log"; fail "sumito selfplay failed"; }
last_sample=$(wc -l <"$samples")
cleanup
cat "$log"

# `self-play with gen-0: 768 games, 9600.0 positions/s`, one line a round.
rates=$(sed -n 's/^self-play with gen-[0-9]*: [0-9]* games, \([0-9.]*\) positions\/s$/\1/p' "$log")
count=$(grep -c . <<<"$rates" || true)
[ "$count" -eq "$rounds" ] || fail "self-play reported $count rounds, not $rounds"
median=$(tail -n +2 <<<"$rates" | sort -n |
    awk '{ rate[NR] = $1 } END { printf "%.0f", NR % 2 ? rate[(NR + 1) / 2] : (rate[NR / 2] + rate[NR / 2 + 1]) / 2 }')
echo "selfplay_rounds_positions_per_second: $(tr '\n' ' ' <<<"$rates")"
echo "selfplay_positions_per_second: $median positions/s (median of rounds 2-$rounds; $workers drivers x 64 games on $device, $cores cores)"
if ! $sampling; then
    echo "gpu_busy_share: not sampled (no nvidia-smi)"
    exit 0
fi
# Numbers only: a GPU that cannot tell answers [N/A].
read -r busy taken < <(awk -v first="${first_sample:-0}" -v last="$last_sample" \
    'NR > first && NR <= last && $1 ~ /^[0-9]+$/ { sum += $1; n++ }
     END { if (n) printf "%.1f %d\n", sum / n, n; else print "none 0" }' "$samples")
echo "gpu_busy_share: $busy % (GPU $gpu, mean of $taken samples every 200 ms over rounds 2-$rounds)"
[ "$busy" != none ] || fail "nvidia-smi gave no utilisation of GPU $gpu during self-play"
if [ "$device" != cpu ] && awk -v busy="$busy" 'BEGIN { exit !(busy == 0) }'; then
    fail "GPU $gpu was never busy during self-play on $device: the network did not run there"
fi
