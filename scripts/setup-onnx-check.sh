#!/usr/bin/env bash
# Installs ONNX Runtime (and NumPy) from PyPI into .venv-onnx/ (git-ignored): the
# runtime the end-to-end test of `sumito export` loads model.onnx with, to check
# that it computes what the TorchScript model does (tests/e2e/onnx.rs, which
# finds the interpreter through SUMITO_ONNX_PYTHON; scripts/test.sh sets it).
# Idempotent: once the install is complete, re-running it does nothing; an
# interrupted run leaves no marker, and the next run starts again.
#
#   scripts/setup-onnx-check.sh    prints the interpreter's path on success
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned, with the packages they bring, so that every machine checks against
# the same runtime (about 180 MB installed).
PACKAGES=(onnxruntime==1.32.0 numpy==2.4.6 flatbuffers==25.12.19 packaging==26.4 protobuf==7.36.2)
VENV="$PWD/.venv-onnx"
MARKER="$VENV/.sumito-onnx-complete"
PYTHON="$VENV/bin/python"

if [[ -x "$PYTHON" && -f "$MARKER" && "$(cat "$MARKER")" == "${PACKAGES[*]}" ]]; then
    echo "$PYTHON"
    exit 0
fi
echo "setup-onnx-check: installing ${PACKAGES[*]} into .venv-onnx/" >&2
if ! command -v python3 > /dev/null; then
    echo "error: scripts/setup-onnx-check.sh needs python3 (3.11 or newer, with venv and pip)" >&2
    exit 1
fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-cache-dir "${PACKAGES[@]}" >&2
"$PYTHON" -c "import onnxruntime, numpy" >&2
echo "${PACKAGES[*]}" > "$MARKER"
echo "$PYTHON"
