#!/usr/bin/env bash
# Builds a toolchain image: the base image's recipe (base/build.sh) with DIR/packages and, where DIR
# holds a configure.sh, that script run as root, offline, in a container of the result (a JDK's own
# configuration files, say), committed as TAG. The tag hashes DIR's files, configure.sh with them
# (scripts/provision.sh, src/environments/images.ts).
# Usage: toolchain.sh TAG DIR
set -euo pipefail
tag=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$dir/configure.sh" ] || exec bash "$here/base/build.sh" "$tag" "$dir/packages"
raw=$tag-unconfigured
bash "$here/base/build.sh" "$raw" "$dir/packages"
cid=$(docker create --network none --user root "$raw" sleep infinity)
trap 'docker rm -f "$cid" >/dev/null 2>&1 || true; docker rmi "$raw" >/dev/null 2>&1 || true' EXIT
docker start "$cid" >/dev/null
docker exec -i "$cid" bash -s <"$dir/configure.sh"
docker commit --change 'USER agent' "$cid" "$tag" >/dev/null
