#!/usr/bin/env bash
# What keeping a run on an object store costs, against a local folder:
#
#   scripts/bench-storage.sh [SECONDS_PER_RUN] [ROUNDS] [TRAINER_SECONDS]
#
# Self-play (`sumito selfplay`, configs/quick.toml) runs SECONDS_PER_RUN
# seconds on a run in a local folder, then as long on a run on the S3 test
# server (`sumito-s3-test-server`, s3s-fs on 127.0.0.1, built if missing),
# alternating ROUNDS times; then a trainer works on the S3 run for
# TRAINER_SECONDS (default SECONDS_PER_RUN) seconds, a self-play worker beside it, and says how much
# of its time it waited on storage (in all, the first read of the games at
# start, and after it). Prints `name: value unit` lines. A benchmark, not a test: run it
# on a quiet machine, with a release build (`cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_RUN=${1:-90}
ROUNDS=${2:-2}
TRAINER_SECONDS=${3:-$SECONDS_PER_RUN}
SUMITO=${SUMITO:-target/release/sumito}
S3S=${SUMITO_S3_TEST_SERVER:-target/debug/sumito-s3-test-server}
CONFIG=configs/quick.toml
[ -x "$SUMITO" ] || { echo "bench-storage: no $SUMITO (cargo build --release)" >&2; exit 1; }
[ -x "$S3S" ] || cargo build --quiet -p sumito-s3-test-server

work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/s3/bucket"
"$S3S" --host 127.0.0.1 --port "$port" --access-key bench --secret-key bench-secret "$work/s3" \
    >/dev/null 2>&1 &
server=$!
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret
export SUMITO_CACHE_DIR="$work/cache" OMP_WAIT_POLICY=PASSIVE

local_run="$work/local-run"
s3_run="s3://bucket/run"

# A run with its generation 0 (the trainer makes it), the trainer stopped.
make_run() {
    local run=$1 marker=$2
    "$SUMITO" trainer --no-progress --config "$CONFIG" --run-dir "$run" >"$work/make.log" 2>&1 &
    local trainer=$!
    for _ in $(seq 600); do
        [ -n "$(ls "$marker" 2>/dev/null)" ] && break
        kill -0 "$trainer" 2>/dev/null || { cat "$work/make.log" >&2; exit 1; }
        sleep 0.1
    done
    kill -INT "$trainer"
    wait "$trainer"
}
make_run "$local_run" "$local_run/models/best"
make_run "$s3_run" "$work/s3/bucket/run/models/best"

# The mean of the positions/s of a self-play run's rounds.
selfplay_for() {
    local run=$1 log=$2
    timeout -s INT "$SECONDS_PER_RUN" "$SUMITO" selfplay --no-progress --run-dir "$run" >"$log" 2>&1 || true
    awk '/self-play with gen-/ { sub(/ positions\/s.*/, ""); n = split($0, w, " "); sum += w[n]; rounds++ }
         END { if (rounds) printf "%.1f\n", sum / rounds; else print "nan" }' "$log"
}

for round in $(seq "$ROUNDS"); do
    local_speed=$(selfplay_for "$local_run" "$work/selfplay-local-$round.log")
    s3_speed=$(selfplay_for "$s3_run" "$work/selfplay-s3-$round.log")
    echo "selfplay_positions_per_second_local_$round: $local_speed positions/s"
    echo "selfplay_positions_per_second_s3_$round: $s3_speed positions/s"
    python3 -c "print('selfplay_s3_to_local_ratio_$round: %.3f ratio' % ($s3_speed / $local_speed))"
done

games=$(find "$work/s3/bucket/run/replay" -name '*.game' | wc -l)
echo "games_in_the_s3_run: $games games"
# The trainer with a self-play worker beside it, as in a real run: it reads
# the games there at start, then trains as new ones arrive, writing
# checkpoints and candidates.
timeout -s INT "$((TRAINER_SECONDS + 5))" "$SUMITO" selfplay --no-progress --run-dir "$s3_run" \
    >"$work/selfplay-beside.log" 2>&1 &
beside=$!
timeout -s INT "$TRAINER_SECONDS" "$SUMITO" trainer --no-progress --run-dir "$s3_run" \
    >"$work/trainer.log" 2>&1 || true
kill -INT "$beside" 2>/dev/null || true
wait "$beside" 2>/dev/null || true
line=$(grep 'waited on storage' "$work/trainer.log" | tail -1)
share=$(sed -n 's/.*waited on storage for [0-9.]* s of [0-9.]* s (\([0-9.]*\) %.*/\1/p' <<<"$line")
after=$(sed -n 's/.*after that [0-9.]* s of [0-9.]* s (\([0-9.]*\) %).*/\1/p' <<<"$line")
startup=$(sed -n 's/.* of which \([0-9.]*\) s reading the \([0-9]*\) games there at start.*/\1/p' <<<"$line")
candidates=$(grep -c 'candidate gen-' "$work/trainer.log" || true)
echo "trainer_candidates_written: $candidates candidates"
echo "trainer_storage_wait_share: ${share:-nan} %"
echo "trainer_startup_read_time: ${startup:-nan} s"
echo "trainer_storage_wait_share_after_startup: ${after:-nan} %"
[ -n "${BENCH_STORAGE_VERBOSE:-}" ] && cat "$work/trainer.log" >&2
exit 0
