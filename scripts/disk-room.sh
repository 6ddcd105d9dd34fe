#!/usr/bin/env bash
# Room on disk for the tests with Docker (`npm test` runs this before them): their images, data directories and
# clones take up to about 10 GB at once. Where the disk holding Docker's data or the temporary directory has less
# than NEED_GB free, the environment images (label chainsmith.env.repo: a cache, rebuilt where a stage needs one)
# that no container uses and that are older than a day are removed, then any age; a disk still short is an error
# that says so, where the tests would otherwise fail one by one, each on a stage the disk stopped
# (gold validation keeps nothing it ran on an all but full disk). Run on 2026-11-29 after a session's
# validations had left 39 GB of images, the tests failed so.
set -euo pipefail
need_gb=${CHAINSMITH_TEST_DISK_GB:-15}
root=$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || echo /var/lib/docker)
free_gb() { df -P -BG "$root" "${TMPDIR:-/tmp}" | awk 'NR > 1 { gsub("G", "", $4); if (min == "" || $4 < min) min = $4 } END { print min }'; }
[ "$(free_gb)" -ge "$need_gb" ] && exit 0
for age in 24h 0h; do
  echo "[test] $(free_gb) GB free on the disks the tests use, $need_gb wanted: removing environment images unused and older than $age" >&2
  docker image prune -a -f --filter label=chainsmith.env.repo --filter "until=$age" | tail -n 1 >&2
  [ "$(free_gb)" -ge "$need_gb" ] && exit 0
done
echo "[test] error: $(free_gb) GB free on the disks holding $root and ${TMPDIR:-/tmp}; the tests with Docker need about $need_gb (CHAINSMITH_TEST_DISK_GB)" >&2
exit 1
