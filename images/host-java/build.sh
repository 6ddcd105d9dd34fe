#!/usr/bin/env bash
# A Java toolchain image: the java image (Debian's JDK 17 and Maven 3.8) plus a newer JDK the host
# provides, copied in at the same path, for projects that compile for a Java release past 17. The
# java image's configure.sh is run on it, so its launcher and logging configuration are those every
# JDK here has. The recipe puts PREFIX/bin first on PATH and sets JAVA_HOME to it
# (src/environments/languages/java/detect.ts). The tag hashes this file (src/environments/toolchains.ts).
# Usage: build.sh BASE_IMAGE TAG PREFIX
set -euo pipefail
base=$1 tag=$2 prefix=$3
rel=${prefix#/}
here=$(cd "$(dirname "$0")/.." && pwd)

cid=$(docker create --network none --user root "$base" sleep infinity)
trap 'docker rm -f "$cid" >/dev/null 2>&1 || true' EXIT
docker start "$cid" >/dev/null
# Sources, manual pages and jmods (jlink's input) are not what a build or test run reads.
tar -C / --numeric-owner --owner=0 --group=0 --exclude="$rel/lib/src.zip" --exclude="$rel/jmods" --exclude="$rel/man" \
  -cf - "$rel" | docker cp - "$cid:/"
docker exec "$cid" bash -c 'd=$(dirname "$1"); while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done' - "$prefix"
missing=$(docker exec "$cid" bash -c 'ldd "$1"/bin/{java,javac} "$1"/lib/server/libjvm.so' - "$prefix" | grep 'not found' | sort -u || true)
if [ -n "$missing" ]; then
  echo "the base image lacks libraries the JDK from $prefix needs:" >&2
  echo "$missing" >&2
  exit 1
fi
docker exec -i -e PATH="$prefix/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$cid" bash -s <"$here/toolchains/java/configure.sh"
docker exec --user agent -w /tmp -e JAVA_HOME="$prefix" -e PATH="$prefix/bin:/usr/bin:/bin" "$cid" \
  bash -c 'java -version && javac -version && mvn -v' >/dev/null 2>&1 \
  || { echo "the JDK from $prefix does not run in the image as the agent user" >&2; exit 1; }
docker commit --change 'USER agent' "$cid" "$tag" >/dev/null
