#!/usr/bin/env bash
# A Rust toolchain image: the rust-web image (its C compiler, libc headers and mold) plus a stable
# rustc and cargo the host provides (a rustup toolchain's sysroot), copied in at the same path, for
# crates that need a newer rustc than Debian packages. rustc finds its standard library relative to
# its own binary; the sysroot's documentation (share/) stays behind. The recipe puts PREFIX/bin first
# on PATH (src/environments/languages/rust/detect.ts). The tag hashes this file
# (src/environments/toolchains.ts).
# Usage: build.sh BASE_IMAGE TAG PREFIX
set -euo pipefail
base=$1 tag=$2 prefix=$3
rel=${prefix#/}

cid=$(docker create --network none --user root "$base" sleep infinity)
trap 'docker rm -f "$cid" >/dev/null 2>&1 || true' EXIT
docker start "$cid" >/dev/null
tar -C / --numeric-owner --owner=0 --group=0 --exclude="$rel/share" -cf - "$rel" | docker cp - "$cid:/"
# The agent user must reach the prefix: every directory above it opened for traversal (/root is 0700).
docker exec "$cid" bash -c 'd=$(dirname "$1"); while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done' - "$prefix"
missing=$(docker exec "$cid" bash -c 'shopt -s nullglob; ldd "$1"/bin/{rustc,cargo,rustdoc} "$1"/lib/librustc_driver-*.so' - "$prefix" | grep 'not found' | sort -u || true)
if [ -n "$missing" ]; then
  echo "the base image lacks libraries the rustc from $prefix needs:" >&2
  echo "$missing" >&2
  exit 1
fi
docker exec --user agent -w /tmp "$cid" bash -c 'PATH=$1/bin:$PATH; rustc -vV && cargo -V && rustdoc -V' - "$prefix" >/dev/null \
  || { echo "the rustc from $prefix does not run in the image as the agent user" >&2; exit 1; }
docker commit --change 'USER agent' "$cid" "$tag" >/dev/null
