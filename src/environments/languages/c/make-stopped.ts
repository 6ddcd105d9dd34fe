/**
 * Whether a failed `make -k` run (its output in the file "$1") skipped a command: for each command make
 * reports failing (`make[N]: *** [FILE:LINE: TARGET] Error 1`, in the directory its `Entering directory`
 * line names), make's own database (`make -prq`, which runs no recipe) says whether LINE was the last
 * command of TARGET's recipe, and whether a target with a recipe of its own needs TARGET (`-k` skips
 * that recipe). Make numbers a failing command by its recipe's first line plus the command's index.
 * Exits 0 (stopped early) where any failure left a command unrun or the database cannot say.
 */
export const STOPPED_EARLY = String.raw`stopped_early() {
  awk '/^make(\[[0-9]+\])?: Entering directory /{n=$1; sub(/^make\[?/, "", n); d=$0; sub(/^[^'"'"']*'"'"'/, "", d); sub(/'"'"'$/, "", d); dir[n+0]=d}
    /^make(\[[0-9]+\])?: \*\*\* \[.*:[0-9]+: .*\] /{n=$1; sub(/^make\[?/, "", n); e=$0; sub(/^[^*]*\*\*\* \[/, "", e); sub(/\] [^]]*$/, "", e)
      f=e; sub(/:[0-9]+: .*$/, "", f); t=e; sub(/^[^:]*:[0-9]+: /, "", t); l=e; sub(/^[^:]*:/, "", l); sub(/:.*/, "", l)
      print ((n+0) in dir ? dir[n+0] : ".") "\t" f "\t" l "\t" t}' "$1" | sort -u > "$1.failed"
  [ -s "$1.failed" ] || return 0
  while IFS=$'\t' read -r d f l t; do
    make -C "$d" -prq .chainsmith-none 2>/dev/null | awk -v F="$f" -v L="$l" -v T="$t" '
      function close_block() { if (name == T && file == F && line + n - 1 == L) last = 1
        if (n && index(" " pre " ", " " T " ")) needed = 1; name = ""; file = ""; n = 0; more = 0 }
      /^# Files/ { files = 1; next }
      /^# files hash-table stats/ { files = 0 }
      !files { next }
      /^$/ { close_block(); next }
      /^#  recipe to execute \(from / { s = $0; sub(/^[^'"'"']*'"'"'/, "", s); file = s; sub(/'"'"', line .*$/, "", file)
        sub(/^.*'"'"', line /, "", s); line = s + 0; next }
      /^\t/ { if (!more) n++; more = /\\$/; next }
      /^[^#]/ && name == "" { name = $0; sub(/:.*$/, "", name); pre = $0; sub(/^[^:]*::?/, "", pre) }
      END { close_block(); exit !(last && !needed) }' || return 0
  done < "$1.failed"
  return 1
}`;
