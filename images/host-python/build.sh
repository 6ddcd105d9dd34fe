#!/usr/bin/env bash
# A Python toolchain image: the base image plus a CPython the host provides (pyenv's, or a configured
# prefix), copied in at the same path because its binaries find libpython by that path. Its test suite
# and site-packages stay behind (the environment's venv gets its own packages). Offline: the base
# image's Debian libraries are what such a build links against (bookworm's); the build checks them
# with ldd and stops naming what is missing. The tag hashes this file (src/environments/toolchains.ts).
# Usage: build.sh BASE_IMAGE TAG PREFIX
set -euo pipefail
base=$1 tag=$2 prefix=$3
minor=$("$prefix/bin/python3" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
rel=${prefix#/}

cid=$(docker create --network none --user root "$base" sleep infinity)
trap 'docker rm -f "$cid" >/dev/null 2>&1 || true' EXIT
docker start "$cid" >/dev/null
tar -C / --numeric-owner --owner=0 --group=0 \
  --exclude="$rel/lib/python$minor/test" --exclude="$rel/lib/python$minor/site-packages/*" --exclude='__pycache__' \
  -cf - "$rel" | docker cp - "$cid:/"
# The agent user must reach the prefix: every directory above it opened for traversal (/root is 0700).
docker exec "$cid" bash -c 'd=$(dirname "$1"); while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done' - "$prefix"
# What the interpreter and its ssl, sqlite3 and ctypes modules link against must be in the image.
missing=$(docker exec "$cid" bash -c 'shopt -s nullglob; ldd "$1/bin/python3" "$1"/lib/python"$2"/lib-dynload/{_ssl,_sqlite3,_ctypes}.*so' - "$prefix" "$minor" | grep 'not found' | sort -u || true)
if [ -n "$missing" ]; then
  echo "the base image lacks libraries Python $minor from $prefix needs:" >&2
  echo "$missing" >&2
  exit 1
fi
docker exec --user agent "$cid" "$prefix/bin/python3" -c 'import ssl, sqlite3, ctypes, venv, ensurepip' \
  || { echo "Python $minor from $prefix does not run in the image as the agent user" >&2; exit 1; }
# The standard library compiled in the image, as CPython's own install leaves it (the copy above leaves the
# host's __pycache__ behind): sandboxes and builds run with PYTHONDONTWRITEBYTECODE, so otherwise every
# Python process compiles each standard module it imports anew (about 0.35 CPU-s of a 0.6 s pytest run).
# Checked-hash bytecode (3.7+) is used only where its source's hash matches, so an edited module is
# never read stale; 3.6 has timestamps only, on files the agent user cannot write. Test packages stay
# out: some hold files that do not compile on purpose.
mode=$(docker exec "$cid" "$prefix/bin/python3" -c 'import sys; print("--invalidation-mode=checked-hash" if sys.version_info >= (3, 7) else "")')
docker exec --user root "$cid" "$prefix/bin/python3" -m compileall -q -j0 $mode \
  -x '/(tests?|idle_test|site-packages)/' "$prefix/lib/python$minor" >/dev/null \
  || { echo "Python $minor from $prefix: compileall failed on its standard library" >&2; exit 1; }
docker commit --change 'USER agent' "$cid" "$tag" >/dev/null
