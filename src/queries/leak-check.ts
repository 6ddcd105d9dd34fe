import type { LeakFinding, LeakKind, LeakReport } from '../schemas';
import { codeTokens, type PatchSecrets } from './patch-secrets';

/**
 * How strongly each kind of finding gives the edit away. A verbatim code run is the edit itself; a
 * literal or a code-shaped name pins the implementation; a plain word the patch defines ("key") is
 * code only in context; a file path says where, which a query may roughly do.
 */
export const LEAK_WEIGHTS: Record<LeakKind, number> = {
  fragment: 0.9,
  literal: 0.6,
  identifier: 0.6,
  name: 0.4,
  path: 0.25,
};

/** Default limit: a lone file path passes, anything stronger or any two findings do not. */
export const DEFAULT_LEAK_LIMIT = 0.3;

/** A code run this long, holding a symbol prose rarely uses, counts as a copied fragment. */
const FRAGMENT_TOKENS = 4;
const CODE_SYMBOL = /^[()[\]{}=<>+*/%&|^!~;@]$/;

function escape(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mentions(text: string, word: string, caseSensitive: boolean): boolean {
  return new RegExp(`(?<![\\w$])${escape(word)}(?![\\w$])`, caseSensitive ? '' : 'i').test(text);
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** Runs of code tokens shared by the query and a changed line, merged into the query's wording. */
function fragments(text: string, codeLines: string[][]): string[] {
  const grams = new Set<string>();
  for (const tokens of codeLines) {
    for (let i = 0; i + FRAGMENT_TOKENS <= tokens.length; i++) {
      const gram = tokens.slice(i, i + FRAGMENT_TOKENS);
      if (gram.some((t) => CODE_SYMBOL.test(t))) grams.add(gram.join('\u0000'));
    }
  }
  const tokens = codeTokens(text);
  const hit = new Array<boolean>(tokens.length).fill(false);
  for (let i = 0; i + FRAGMENT_TOKENS <= tokens.length; i++) {
    if (grams.has(tokens.slice(i, i + FRAGMENT_TOKENS).join('\u0000'))) hit.fill(true, i, i + FRAGMENT_TOKENS);
  }
  const found: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!hit[i]) continue;
    let j = i;
    while (j < tokens.length && hit[j]) j++;
    found.push(tokens.slice(i, j).join(' '));
    i = j;
  }
  return found;
}

/** The findings in `text` and its leak score, 1 − Π(1 − weight): each finding adds, none alone exceeds its weight. */
export function checkLeak(text: string, secrets: PatchSecrets): { score: number; findings: LeakFinding[] } {
  const findings: LeakFinding[] = [];
  const add = (kind: LeakKind, found: string) => {
    if (!findings.some((f) => f.kind === kind && f.text === found))
      findings.push({ kind, text: found, weight: LEAK_WEIGHTS[kind] });
  };
  for (const gram of fragments(text, secrets.codeLines)) add('fragment', gram);
  const prose = normalize(text);
  for (const literal of secrets.literals) if (prose.includes(normalize(literal))) add('literal', literal);
  for (const id of secrets.identifiers) if (mentions(text, id, true)) add('identifier', id);
  // Plain names are matched in any case: "Median" opens a sentence as readily as "median".
  for (const name of secrets.names)
    if (!secrets.identifiers.has(name) && mentions(text, name, false)) add('name', name);
  // "tally/stats.py" also mentions "stats.py"; the longer path is the one finding.
  for (const path of [...secrets.paths].sort((a, b) => b.length - a.length)) {
    const within = findings.some((f) => f.kind === 'path' && f.text.endsWith(`/${path}`));
    if (!within && mentions(text, path, true)) add('path', path);
  }
  const score = 1 - findings.reduce((keep, f) => keep * (1 - f.weight), 1);
  return { score: Math.round(score * 1000) / 1000, findings };
}

/** The leak report of a query that was generated once (a template, or a model's single try). */
export function leakReport(text: string, secrets: PatchSecrets, limit = DEFAULT_LEAK_LIMIT): LeakReport {
  const { score, findings } = checkLeak(text, secrets);
  return { score, findings, limit, passed: score <= limit, attempts: 1, firstScore: score };
}

const DESCRIBE: Record<LeakKind, string> = {
  fragment: 'a piece of the code itself',
  literal: 'a string literal from the code',
  identifier: 'a name from the code',
  name: 'a name the change defines',
  path: 'a file the change touches',
};

/** What to tell the query writer when its text gave something away. */
export function describeFindings(findings: LeakFinding[]): string {
  return findings.map((f) => `- ${DESCRIBE[f.kind]}: "${f.text}"`).join('\n');
}
