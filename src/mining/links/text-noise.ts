/**
 * Blanks the parts of a PR text that are not its author speaking of this change: HTML comments (the
 * PR template's hints, "Fixes #<issue number>"), fenced code blocks (logs, tracebacks, other projects'
 * code), and quoted lines (a reply quoting someone else, release notes a dependency bump pastes in).
 * Each blanked character becomes a space and line breaks stay, so offsets into the text still hold.
 */
export function blankNoise(text: string): string {
  if (!/<!--|```|~~~|^\s{0,3}>/m.test(text)) return text;
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  const lines = text.replace(/<!--[\s\S]*?(?:-->|$)/g, blank).split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence !== undefined) {
      // A fence closes on a line of its own character alone, at least as long (CommonMark).
      const close = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) fence = undefined;
      lines[i] = blank(line);
      continue;
    }
    // An opening backtick fence's info string has no backtick: "```fix #12```" is inline code, not a fence.
    const open = /^\s{0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = open[1];
      lines[i] = blank(line);
    } else if (/^\s{0,3}>/.test(line)) lines[i] = blank(line);
  }
  return lines.join('\n');
}
