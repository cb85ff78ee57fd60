#!/usr/bin/env bash
# Trains a player from scratch with the default configuration (made for a
# 2-core CPU). Re-running it resumes the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
# libtorch for the network (downloaded once into .libtorch/).
bash scripts/setup-libtorch.sh
echo "sumito train is coming with the training pipeline (issue 6)." >&2
exit 1
