#!/usr/bin/env bash
# Installs libtorch, the C++ library behind PyTorch that the `tch` crate links,
# into .libtorch/ (git-ignored). Idempotent: re-running it does nothing once the
# install is complete.
#
#   scripts/setup-libtorch.sh          CPU libtorch into .libtorch/cpu (what
#                                      .cargo/config.toml points LIBTORCH at)
#   scripts/setup-libtorch.sh --cuda   full CUDA libtorch into .libtorch/cuda, for
#                                      a machine with an NVIDIA GPU (see README,
#                                      "libtorch and GPU")
#
# The only reachable sources are package registries, so libtorch comes from the
# PyPI wheel of torch, which carries the same headers and shared libraries as the
# libtorch zip. Wheels are downloaded into .whl/ and checked against pinned
# sha256 sums, and deleted once the install is complete (the torch wheel is
# 515 MB, and a fresh CI machine's disk is not large); an interrupted run
# leaves only a partial folder that the next run deletes and starts again.
set -euo pipefail
cd "$(dirname "$0")/.."

# tch 0.26 is built against exactly this version (torch-sys checks it).
TORCH_VERSION=2.13.0
PYTHON_TAG=cp311
TORCH_WHEEL="torch-${TORCH_VERSION}-${PYTHON_TAG}-${PYTHON_TAG}-manylinux_2_28_x86_64.whl"
TORCH_SHA256=60fcdcb2f3876e21146cb4524ef06397d727ca9ad5f020818547e25075fe3cb7
# libtorch_cpu.so of the CUDA build needs the CUDA runtime and CUPTI even when no
# GPU is used; torch 2.13.0 pins them through cuda-toolkit 13.0.3.
CUDART_WHEEL=nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
CUDART_SHA256=7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548
CUPTI_WHEEL=nvidia_cuda_cupti-13.0.85-py3-none-manylinux_2_25_x86_64.whl
CUPTI_SHA256=4eb01c08e859bf924d222250d2e8f8b8ff6d3db4721288cf35d14252a4d933c8

ROOT="$PWD"
CACHE="$ROOT/.whl"
INSTALL_ROOT="$ROOT/.libtorch"
# Written last; its content names everything the install is made of, so a change
# of version or wheel here makes the next run reinstall.
MARKER_NAME=.sumito-libtorch-complete

say() { echo "setup-libtorch: $*"; }
fail() {
    echo "setup-libtorch: error: $*" >&2
    exit 1
}

mode=cpu
case "${1:-}" in
    "") ;;
    --cuda) mode=cuda ;;
    -h | --help)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) fail "unknown argument '$1' (expected nothing or --cuda)" ;;
esac

[ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ] ||
    fail "only Linux x86_64 is supported by this script (found $(uname -s) $(uname -m)); install libtorch ${TORCH_VERSION} yourself and set LIBTORCH"
PYTHON="$(command -v python3 || true)"
[ -n "$PYTHON" ] || fail "python3 is needed to fetch the torch wheel from PyPI (e.g. apt-get install python3 python3-pip)"
"$PYTHON" -m pip --version > /dev/null 2>&1 ||
    fail "pip is needed to fetch the torch wheel from PyPI (e.g. apt-get install python3-pip)"

if [ -n "${LIBTORCH:-}" ]; then
    say "note: LIBTORCH is set to '$LIBTORCH' in this shell; cargo uses that instead of .libtorch/$mode"
fi

# fetch_wheel REQUIREMENT FILE SHA256: makes $CACHE/FILE exist with that sha256.
fetch_wheel() {
    local requirement="$1" file="$2" sha="$3"
    local path="$CACHE/$file"
    if [ -f "$path" ] && echo "$sha  $path" | sha256sum --check --status; then
        say "$file already downloaded and verified"
        return
    fi
    rm -f "$path"
    local partial="$CACHE/partial-download"
    rm -rf "$partial"
    mkdir -p "$partial"
    say "downloading $requirement from PyPI into .whl/ ..."
    # Fixed platform and Python tags: only the libraries are used, so the wheel
    # need not match the local Python.
    "$PYTHON" -m pip download --no-cache-dir --no-deps --only-binary=:all: --progress-bar off \
        --implementation cp --python-version 3.11 \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_25_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --dest "$partial" "$requirement" ||
        fail "pip could not download $requirement (is PyPI reachable?)"
    [ -f "$partial/$file" ] || fail "pip downloaded $(ls "$partial") instead of $file"
    echo "$sha  $partial/$file" | sha256sum --check --status ||
        fail "sha256 of the downloaded $file is $(sha256sum "$partial/$file" | cut -d' ' -f1), expected $sha"
    mv "$partial/$file" "$path"
    rm -rf "$partial"
    say "verified sha256 of $file"
}

install_cpu() {
    local dest="$INSTALL_ROOT/cpu"
    local stamp="torch ${TORCH_VERSION} cpu ${TORCH_SHA256} ${CUDART_SHA256} ${CUPTI_SHA256}"
    if [ -f "$dest/$MARKER_NAME" ] && [ "$(cat "$dest/$MARKER_NAME")" = "$stamp" ]; then
        say "libtorch ${TORCH_VERSION} (CPU) is already installed in .libtorch/cpu"
        return
    fi
    mkdir -p "$CACHE"
    fetch_wheel "torch==${TORCH_VERSION}" "$TORCH_WHEEL" "$TORCH_SHA256"
    fetch_wheel "nvidia-cuda-runtime==13.0.96" "$CUDART_WHEEL" "$CUDART_SHA256"
    fetch_wheel "nvidia-cuda-cupti==13.0.85" "$CUPTI_WHEEL" "$CUPTI_SHA256"

    local partial="$CACHE/libtorch-cpu.partial"
    rm -rf "$partial"
    say "unpacking headers and CPU libraries into .libtorch/cpu ..."
    # Python's zipfile, so that no unzip tool is needed. Each extracted file is
    # checked against the sha256 in the wheel's RECORD.
    "$PYTHON" - "$partial" "$CACHE/$TORCH_WHEEL" "$CACHE/$CUDART_WHEEL" "$CACHE/$CUPTI_WHEEL" << 'EOF'
import base64, hashlib, os, re, sys, zipfile

dest, torch_wheel, cudart_wheel, cupti_wheel = sys.argv[1:]
lib_dir = os.path.join(dest, "lib")
os.makedirs(lib_dir)

def record_hashes(wheel):
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    hashes = {}
    for line in wheel.read(name).decode().splitlines():
        parts = line.rsplit(",", 2)
        if len(parts) == 3 and parts[1].startswith("sha256="):
            hashes[parts[0]] = parts[1][len("sha256="):]
    return hashes

def extract(wheel, hashes, member, target):
    data = wheel.read(member)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if hashes.get(member) != digest:
        sys.exit(f"setup-libtorch: error: {member} in {wheel.filename} does not match its RECORD hash")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as out:
        out.write(data)
    mode = wheel.getinfo(member).external_attr >> 16
    os.chmod(target, (mode & 0o777) or 0o644)

with zipfile.ZipFile(torch_wheel) as wheel:
    hashes = record_hashes(wheel)
    names = wheel.namelist()
    headers = [n for n in names if n.startswith("torch/include/") and not n.endswith("/")]
    for member in headers:
        extract(wheel, hashes, member, os.path.join(dest, member[len("torch/"):]))
    # libtorch_cuda.so is left out on purpose: torch-sys links it whenever it
    # is present, and it needs the whole CUDA toolkit.
    wanted = {"libtorch_cpu.so", "libc10.so", "libtorch.so"}
    gomp = [n for n in names if re.fullmatch(r"torch/lib/libgomp(-[0-9a-f]+)?\.so\.1", n)]
    if len(gomp) != 1:
        sys.exit(f"setup-libtorch: error: expected one libgomp in {torch_wheel}, found {gomp}")
    libs = [f"torch/lib/{name}" for name in sorted(wanted)] + gomp
    for member in libs:
        if member not in names:
            sys.exit(f"setup-libtorch: error: {member} is missing from {torch_wheel}")
        extract(wheel, hashes, member, os.path.join(lib_dir, os.path.basename(member)))
    # torch-sys links `-lgomp`, which needs the unversioned name.
    os.symlink(os.path.basename(gomp[0]), os.path.join(lib_dir, "libgomp.so"))
    print(f"setup-libtorch: unpacked {len(headers)} headers and {', '.join(os.path.basename(l) for l in libs)}")

for wheel_path, lib in ((cudart_wheel, "libcudart.so.13"), (cupti_wheel, "libcupti.so.13")):
    with zipfile.ZipFile(wheel_path) as wheel:
        member = f"nvidia/cu13/lib/{lib}"
        extract(wheel, record_hashes(wheel), member, os.path.join(lib_dir, lib))
        print(f"setup-libtorch: unpacked {lib}")
EOF
    # torch-sys compares this with the version it was written for.
    echo "${TORCH_VERSION}+cpu" > "$partial/build-version"
    echo "$stamp" > "$partial/$MARKER_NAME"
    mkdir -p "$INSTALL_ROOT"
    rm -rf "$dest"
    mv "$partial" "$dest"
    say "libtorch ${TORCH_VERSION} (CPU) installed in .libtorch/cpu ($(du -sh "$dest" | cut -f1))"
    # The wheels served their purpose: the stamp above says the install is
    # whole, so no later run reads them again.
    rm -f "$CACHE/$TORCH_WHEEL" "$CACHE/$CUDART_WHEEL" "$CACHE/$CUPTI_WHEEL"
    rmdir "$CACHE" 2> /dev/null || true
    say "deleted the downloaded wheels from .whl/"
}

# The full CUDA build: pip installs torch with all its CUDA wheels into a venv,
# and .libtorch/cuda/lib gets a symlink to every shared library of torch and of
# the nvidia packages, in one folder. The libraries find each other through
# their `$ORIGIN` rpath, which then points at that one folder.
install_cuda() {
    local dest="$INSTALL_ROOT/cuda"
    local venv="$INSTALL_ROOT/cuda-venv"
    local stamp="torch ${TORCH_VERSION} cuda"
    if [ -f "$dest/$MARKER_NAME" ] && [ "$(cat "$dest/$MARKER_NAME")" = "$stamp" ]; then
        say "libtorch ${TORCH_VERSION} (CUDA) is already installed in .libtorch/cuda"
        return
    fi
    if [ ! -x "$venv/bin/python" ]; then
        say "creating a Python venv in .libtorch/cuda-venv ..."
        rm -rf "$venv"
        "$PYTHON" -m venv "$venv" || fail "python3 -m venv failed (e.g. apt-get install python3-venv)"
    fi
    say "installing torch==${TORCH_VERSION} with its CUDA libraries into the venv (several GB) ..."
    "$venv/bin/python" -m pip install --progress-bar off "torch==${TORCH_VERSION}" ||
        fail "pip install torch==${TORCH_VERSION} failed"
    local site
    site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    [ -f "$site/torch/lib/libtorch_cuda.so" ] ||
        fail "the installed torch has no libtorch_cuda.so (a CPU-only build?): $site/torch/lib"

    local partial="$CACHE/libtorch-cuda.partial"
    rm -rf "$partial"
    mkdir -p "$partial/lib" "$CACHE"
    ln -s "$site/torch/include" "$partial/include"
    local lib count=0
    for lib in "$site"/torch/lib/*.so* "$site"/nvidia/*/lib/*.so*; do
        [ -f "$lib" ] || continue
        ln -sf "$lib" "$partial/lib/$(basename "$lib")"
        count=$((count + 1))
    done
    [ -e "$partial/lib/libgomp.so" ] || ln -s libgomp.so.1 "$partial/lib/libgomp.so"
    echo "${TORCH_VERSION}+cuda" > "$partial/build-version"
    echo "$stamp" > "$partial/$MARKER_NAME"
    mkdir -p "$INSTALL_ROOT"
    rm -rf "$dest"
    mv "$partial" "$dest"
    say "libtorch ${TORCH_VERSION} (CUDA) installed in .libtorch/cuda ($count libraries)"
    say "build with:  LIBTORCH=\"$dest\" cargo build --release --features cuda"
}

"install_$mode"
