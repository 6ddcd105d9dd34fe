import type { PullRequestRecord } from '../../schemas';
import { splitMessage } from '../landings/commit-log';

/** B says it repairs something: rewriting A's lines is then most likely repairing A. */
const FIX_WORDS =
  /\b(fix(es|ed|ing)?|bug|crash(es)?|regression|broken|breaks?|breaking|typo|incorrect|wrong|leak|overflow|use-after-free|infinite loop)\b/i;
const FIX_BONUS = 0.1;

/** B's title or description calls it a fix. */
export const saysFix = (b: PullRequestRecord) => FIX_WORDS.test(`${b.title}\n${b.body}`);
/** B says an earlier change broke something: whoever wrote the lines it rewrites is the likeliest culprit. */
const REGRESSION_WORDS = /\b(regress(ion|ions|ed)?|introduced (in|by|with)|broken (by|in|since)|broke in|caused by)\b/i;
export const REGRESSION_BONUS = 0.2;
/** B and A name the same code identifier: both are about the same thing. */
const NAME_BONUS = 0.15;
/** Identifiers in more than this share of PRs are the project's vocabulary, not a topic. */
const MAX_NAME_SHARE = 0.02;

const IDENTIFIER = /`([^`\s]{3,})`|\b([A-Za-z][a-z0-9]+[A-Z]\w*|[A-Za-z]\w*_\w+)\b/g;

/** Subjects name the code touched; "Merge pull request #N from user/branch" names people. */
const texts = (pr: PullRequestRecord) =>
  [pr.title, ...pr.messages.map((message) => splitMessage(message).subject)]
    .filter((subject) => !/^Merge /.test(subject))
    .join('\n');

/** "print_array: return booleans", "tests: print_string: …" tag a commit with the component it touches, which blame already says. */
const COMPONENT_TAG = /^(?:\s*`?[\w.]+(?:\(\))?`?:\s+)+/gm;

function identifiers(pr: PullRequestRecord): Set<string> {
  const found = new Set<string>();
  for (const match of texts(pr).matchAll(IDENTIFIER)) {
    const name = (match[1] ?? match[2]).replace(/\(\)$/, '');
    if (name.length >= 5) found.add(name);
  }
  return found;
}

/** A title's long plain words: the frequency limit leaves only the rare ones ("OSS-Fuzz", "whitespace"). */
const titleWords = (pr: PullRequestRecord) =>
  new Set(
    pr.title
      .replace(COMPONENT_TAG, '')
      .toLowerCase()
      .match(/[a-z][a-z-]{5,}/g) ?? [],
  );

/** Identifiers a PR's subjects name other than as a component tag: what the PR is about. */
function topics(pr: PullRequestRecord): Set<string> {
  const untagged = texts(pr).replace(COMPONENT_TAG, '');
  return identifiers({ ...pr, title: untagged, messages: [] });
}

const frequencies = new WeakMap<readonly PullRequestRecord[], Map<string, number>>();

function frequency(all: readonly PullRequestRecord[]): Map<string, number> {
  let counts = frequencies.get(all);
  if (!counts) {
    counts = new Map();
    for (const pr of all)
      for (const name of new Set([...identifiers(pr), ...titleWords(pr)]))
        counts.set(name, (counts.get(name) ?? 0) + 1);
    frequencies.set(all, counts);
  }
  return counts;
}

/**
 * What the two PRs' words add to a code-history link: B calling itself a fix (of a regression, more
 * so), and both naming the
 * same identifier that few other PRs name (A in its words, or among the names its code brought in, `introducedByA`). Returns the confidence to add and why, for the evidence.
 */
export function corroboration(
  b: PullRequestRecord,
  a: PullRequestRecord,
  all: readonly PullRequestRecord[],
  introducedByA: ReadonlySet<string> = new Set(),
): { bonus: number; why: string; shared?: string } {
  let bonus = 0;
  const why: string[] = [];
  // The title and description say what the PR is for; one "fix comment" commit among many does not.
  if (REGRESSION_WORDS.test(`${b.title}\n${b.body}`)) {
    bonus += REGRESSION_BONUS;
    why.push(`#${b.number} says an earlier change broke it`);
  } else if (FIX_WORDS.test(`${b.title}\n${b.body}`)) {
    bonus += FIX_BONUS;
    why.push(`#${b.number} says it fixes`);
  }
  const counts = frequency(all);
  const limit = Math.max(2, all.length * MAX_NAME_SHARE);
  const [aNames, aTopics, bTopics] = [identifiers(a), topics(a), topics(b)];
  // The same thing named by both: in A's words, or as a name A's code brought in (B's title names
  // what A wrote). Both naming it only as a component tag says no more than the blame did.
  const aWords = titleWords(a);
  const shared = [
    ...[...identifiers(b)].filter(
      (name) => (aNames.has(name) && (aTopics.has(name) || bTopics.has(name))) || introducedByA.has(name),
    ),
    // Plain words only where both titles say them: in code, words are any module's or variable's.
    ...[...titleWords(b)].filter((word) => aWords.has(word)),
  ].filter((name) => (counts.get(name) ?? 0) <= limit);
  if (shared.length > 0) {
    bonus += NAME_BONUS;
    why.push(`both name ${shared[0]}`);
  }
  return { bonus, why: why.length ? `; ${why.join('; ')}` : '', ...(shared.length > 0 ? { shared: shared[0] } : {}) };
}

/** Names a diff's added lines hold that none of its deleted lines held: what the change brought in. */
export function introduced(diff: string): Set<string> {
  const names = (sign: string) =>
    new Set(
      diff
        .split('\n')
        .filter((line) => line.startsWith(sign) && !line.startsWith(sign.repeat(3)))
        .flatMap((line) => line.match(/[A-Za-z_]\w{4,}/g) ?? []),
    );
  const removed = names('-');
  return new Set([...names('+')].filter((name) => !removed.has(name)));
}
