#!/usr/bin/env bash
# `npm test`: provisioning, then the build (dist/, which the worker-process tests run), then four
# things side by side: the type check of src, test and bench, the lint, the formatter's check, and the test files that need
# no Docker (first line `// no-docker:`, jest.config.js), run with DOCKER_HOST pointing nowhere: one
# that does use Docker fails there every time. Then the other test files, four at a time
# (jest.config.js), once the disk has room for them (scripts/disk-room.sh). Arguments go to that last jest run. No test stops the machine's engines (the
# restart tests start a dockerd and a dev server of their own), so this is safe beside real work.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/provision.sh || exit $?
npm run -s build || { echo '[test] the build failed' >&2; exit 1; }

out=$(mktemp -d)
# Every temporary directory the tests and the processes they start make (os.tmpdir() reads TMPDIR) goes
# under one directory of this run's, removed when it ends: runs left their clones, data directories
# and dossiers behind in /tmp (18 GB had piled up).
# Open to every user as /tmp is: some tests run the CLI as an unprivileged user.
TMPDIR=$(mktemp -d -t chainsmith-tests.XXXXXX) && chmod 1777 "$TMPDIR"
export TMPDIR
trap 'rm -rf "$out"; rm -rf "$TMPDIR" 2>/dev/null' EXIT
names=(typecheck lint format no-docker)
cmds=("npm run -s typecheck" "npm run -s lint" "npm run -s format:check" "npx jest")
envs=("" "" "" "CHAINSMITH_TESTS=no-docker DOCKER_HOST=unix:///nonexistent/docker.sock")
pids=()
for i in "${!names[@]}"; do
  env ${envs[$i]} ${cmds[$i]} >"$out/${names[$i]}" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  if wait "${pids[$i]}"; then
    echo "[test] ${names[$i]} passed: ${envs[$i]:+${envs[$i]} }${cmds[$i]}" >&2
    case ${names[$i]} in no-docker) grep -E '^(PASS|Tests:|Time:)' "$out/${names[$i]}" >&2 ;; esac
  else
    echo "[test] ${names[$i]} failed: ${envs[$i]:+${envs[$i]} }${cmds[$i]}" >&2
    cat "$out/${names[$i]}" >&2
    failed=1
  fi
done
[ $failed = 0 ] || exit 1
bash scripts/disk-room.sh || exit 1
CHAINSMITH_TESTS=docker npx jest "$@"
