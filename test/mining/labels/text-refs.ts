/** What one text names: PR or issue numbers of this repository, and words that may be commit ids. */
export interface TextRefs {
  numbers: Set<number>;
  hexWords: Set<string>;
}

/** `#N` or `GH-N` not glued to a word or path (`owner/repo#N` names another repository). */
const NUMBER = /(?<![\w/#-])(?:#|gh-)(\d{1,6})\b/gi;
const URL = /github\.com\/([\w.-]+)\/([\w.-]+)\/(?:pull|issues)\/(\d{1,6})\b/gi;
const HEX = /\b[0-9a-f]{7,40}\b/gi;

/**
 * Every reference a text makes, whatever the words around it: the scan proposes, a labeller judges.
 * URLs count when they name `repo` (owner/name, case ignored), or any repository when `repo` is not
 * known.
 */
export function scanText(text: string, repo?: string): TextRefs {
  const numbers = new Set<number>();
  for (const match of text.matchAll(NUMBER)) numbers.add(Number(match[1]));
  for (const match of text.matchAll(URL)) {
    if (repo === undefined || `${match[1]}/${match[2]}`.toLowerCase() === repo.toLowerCase())
      numbers.add(Number(match[3]));
  }
  const hexWords = new Set<string>();
  for (const match of text.matchAll(HEX)) hexWords.add(match[0].toLowerCase());
  return { numbers, hexWords };
}

/** Commit ids sorted for prefix look-ups of short hex words. */
export class ShaIndex {
  private readonly sorted: string[];

  constructor(shas: Iterable<string>) {
    this.sorted = [...new Set(shas)].sort();
  }

  /** Every id that starts with `prefix`. */
  withPrefix(prefix: string): string[] {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.sorted[mid] < prefix) low = mid + 1;
      else high = mid;
    }
    const hits: string[] = [];
    for (let i = low; i < this.sorted.length && this.sorted[i].startsWith(prefix); i += 1) hits.push(this.sorted[i]);
    return hits;
  }
}
