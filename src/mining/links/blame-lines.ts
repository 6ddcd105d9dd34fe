/** One line of `git blame --porcelain`: the commit it is blamed on, its number in the blamed file, its text. */
export interface BlamedLine {
  sha: string;
  line: number;
  text: string;
}

/** The lines of `git blame --porcelain`, leaving out those older than --since (boundary commits). */
export function blamedLines(porcelain: string): BlamedLine[] {
  const lines: BlamedLine[] = [];
  const boundary = new Set<string>();
  let current: { sha: string; line: number } | undefined;
  for (const row of porcelain.split('\n')) {
    const header = /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/.exec(row);
    if (header) current = { sha: header[1], line: Number(header[2]) };
    else if (row === 'boundary' && current) boundary.add(current.sha);
    else if (row.startsWith('\t') && current) {
      lines.push({ ...current, text: row.slice(1) });
      current = undefined;
    }
  }
  return lines.filter((line) => !boundary.has(line.sha));
}
