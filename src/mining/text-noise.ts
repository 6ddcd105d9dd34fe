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
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(lines[i])?.[1];
    if (fence !== undefined || marker !== undefined || /^\s{0,3}>/.test(lines[i])) lines[i] = blank(lines[i]);
    if (marker === undefined) continue;
    if (fence === undefined) fence = marker;
    else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
  }
  return lines.join('\n');
}
