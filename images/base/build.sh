#!/usr/bin/env bash
# Builds the sandbox base image offline: a debootstrap rootfs imported with `docker import`.
# The image tag hashes every file of this folder (see scripts/provision.sh), so a recipe edit rebuilds it.
# Usage: build.sh TAG
set -euo pipefail
tag=$1
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm
mirror=${CHAINSMITH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=$(tr "\n" , <"$here/packages" | sed "s/,$//")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; echo "debootstrap failed (mirror: $mirror)" >&2; exit 1; }

# Agent commands run as an unprivileged user that owns only /work.
chroot "$rootfs" useradd --create-home --uid 1000 --shell /bin/bash agent
mkdir -p "$rootfs/work"
chroot "$rootfs" chown agent:agent /work

cp "$here/gitconfig" "$rootfs/etc/gitconfig"
cp "$here/gitignore" "$rootfs/etc/gitignore-chainsmith"

# Smaller image: no apt lists, docs or caches.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*

tar -C "$rootfs" --numeric-owner -c . | docker import \
  -c 'USER agent' -c 'WORKDIR /work' -c 'ENV PYTHONDONTWRITEBYTECODE=1' -c 'ENV LANG=C.UTF-8' \
  -c 'CMD ["sleep", "infinity"]' - "$tag" >/dev/null
