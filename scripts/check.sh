#!/usr/bin/env bash
# The static checks `npm test` runs before jest, side by side: package.json's `typecheck` (src, test
# and bench), `lint`, and `build` (dist/, which the worker-process tests and the benches run). Each is
# single-threaded, so two cores take them in about the time of the slowest. Both tsc runs are
# incremental (their .tsbuildinfo files sit in node_modules/.cache and dist/), so a warm rerun only
# redoes what changed; the lint, whose type-aware rules see across files, always runs whole.
set -uo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=(typecheck lint build)
cmds=("npm run -s typecheck" "npm run -s lint" "npm run -s build")
pids=()
for i in "${!names[@]}"; do
  ${cmds[$i]} >"$out/${names[$i]}" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "[check] ${names[$i]} failed: ${cmds[$i]}" >&2
    cat "$out/${names[$i]}" >&2
    failed=1
  fi
done
exit $failed
