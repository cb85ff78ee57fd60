#!/usr/bin/env bash
# Installs the S3-compatible server the storage tests run on 127.0.0.1:
# s3s-fs (an S3 API over a folder), built from crates.io into
# .tools/s3s-fs/bin/s3s-fs. Idempotent: an installed server of this version
# is left as it is. (Also handy to try a run on object storage by hand; see
# the README.)
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.14.1
root=.tools/s3s-fs
if [[ -x $root/bin/s3s-fs && -f $root/VERSION && $(cat "$root/VERSION") == "$version" ]]; then
    exit 0
fi
echo "building the S3 test server s3s-fs $version into $root (once)" >&2
cargo install s3s-fs --version "$version" --features binary --locked --root "$root" --quiet
echo "$version" > "$root/VERSION"
