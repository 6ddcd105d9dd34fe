#!/usr/bin/env bash
# `npm test`: provisioning, then the build (dist/, which the worker-process tests run), then three
# things side by side: the type check of src, test and bench, the lint, and the test files that restart
# the machine's dockerd (*.exclusive.test.ts, jest.exclusive.config.js). Nothing else uses Docker while
# they run, and they mostly wait for the daemon, which the checks' CPU work fills. Then the other test
# files, four at a time (jest.config.js). Arguments go to that last jest run.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/provision.sh || exit $?
npm run -s build || { echo '[test] the build failed' >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=(typecheck lint exclusive)
cmds=("npm run -s typecheck" "npm run -s lint" "npx jest -c jest.exclusive.config.js")
pids=()
for i in "${!names[@]}"; do
  ${cmds[$i]} >"$out/${names[$i]}" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  if wait "${pids[$i]}"; then
    echo "[test] ${names[$i]} passed: ${cmds[$i]}" >&2
    [ "${names[$i]}" = exclusive ] && cat "$out/${names[$i]}" >&2
  else
    echo "[test] ${names[$i]} failed: ${cmds[$i]}" >&2
    cat "$out/${names[$i]}" >&2
    failed=1
  fi
done
[ $failed = 0 ] || exit 1
exec npx jest "$@"
