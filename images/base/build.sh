#!/usr/bin/env bash
# Builds a sandbox image offline: a debootstrap rootfs imported with `docker import`. With no package
# files it is the base image; a toolchain image adds its images/toolchains/NAME/packages.
# The tags hash every file of the recipe (see scripts/provision.sh, src/environments/images.ts).
# Usage: build.sh TAG [PACKAGES_FILE...]
# The Debian mirror is the host's (its apt sources) unless CHAINSMITH_DEBIAN_MIRROR names one;
# CHAINSMITH_DEBOOTSTRAP_CACHE (an absolute path) keeps downloaded packages for the next build.
set -euo pipefail
tag=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm

# The first archive the host's apt sources name for this suite (one-line or deb822 format).
host_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i + 1) == s) { print $i; exit } break } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '
      function flush() { if (uri != "" && suites ~ ("(^| )" s "( |$)") && enabled != "no") { print uri; found = 1; exit } uri = ""; suites = ""; enabled = "" }
      /^[ \t]*$/ { flush(); next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { $1 = ""; suites = $0; sub(/^ /, "", suites) }
      /^Enabled:/ { enabled = $2 }
      END { if (!found) flush() }' "$f"
  done
}
mirror=${CHAINSMITH_DEBIAN_MIRROR:-$(host_mirror | head -n 1)}
[ -n "$mirror" ] || { echo "no Debian $suite archive in the host's apt sources; set CHAINSMITH_DEBIAN_MIRROR" >&2; exit 1; }
packages=$(cat "$here/packages" "$@" | sed 's/#.*//' | tr -s ' \t\n' '\n' | sed '/^$/d' | sort -u | paste -sd, -)
cache=()
if [ -n "${CHAINSMITH_DEBOOTSTRAP_CACHE:-}" ]; then
  mkdir -p "$CHAINSMITH_DEBOOTSTRAP_CACHE"
  cache=(--cache-dir="$CHAINSMITH_DEBOOTSTRAP_CACHE")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

debootstrap --variant=minbase "${cache[@]}" --include="$packages" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
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
