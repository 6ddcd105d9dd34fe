import type { PullRequest } from '../../../schemas';

/**
 * How much of a PR the link judge sees. Enough to tell what each change does; a huge PR is cut, each
 * file's section first, so one big file does not hide the others.
 */
export const TRIM = { bodyChars: 3_000, messageChars: 1_500, fileChars: 2_500, patchChars: 8_000 } as const;

const SECTION = /^diff --git /gm;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... ${text.length - max} more characters not shown ...]`;
}

/** The patch, each file's section at most TRIM.fileChars and all of them TRIM.patchChars; binary contents left out. */
export function trimmedDiff(patch: string): string {
  const starts = [...patch.matchAll(SECTION)].map((match) => match.index ?? 0);
  const sections = starts.map((start, i) =>
    patch
      .slice(start, starts[i + 1] ?? patch.length)
      .replace(/^GIT binary patch\n[\s\S]*$/m, '(binary contents not shown)\n'),
  );
  let out = '';
  for (const [i, section] of sections.entries()) {
    const piece = cut(section.trimEnd(), TRIM.fileChars) + '\n';
    if (out.length + piece.length > TRIM.patchChars) {
      const rest = sections.slice(i).map((s) => s.split('\n')[0].replace(/^diff --git a\/(.*) b\/.*$/, '$1'));
      return `${out}[... ${rest.length} more file(s) not shown: ${rest.join(', ')} ...]\n`;
    }
    out += piece;
  }
  return out || '(no diff)\n';
}

/** Commit messages that say more than the title and description do (a squash's message repeats both). */
function ownMessages(pr: PullRequest): string[] {
  const said = (text: string) => text.replace(/\s+/g, ' ').trim();
  const [title, body] = [said(pr.title), said(pr.body)];
  return [...new Set(pr.messages.map((m) => m.trim()))].filter((message) => {
    const [first, ...rest] = message.split('\n');
    const more = said(rest.join(' ')).replace(/^\* /, '');
    return !(said(first).startsWith(title) && (more === '' || more === body.replace(/^\* /, '')));
  });
}

/** One PR as the judge reads it: title, description, its own commit messages, and the trimmed diff. */
export function describePr(pr: PullRequest): string {
  const messages = ownMessages(pr);
  return [
    `#${pr.number}: ${pr.title} (merged ${pr.mergedAt.slice(0, 10)})`,
    `Description:\n${cut(pr.body.trim(), TRIM.bodyChars) || '(none)'}`,
    `Commit messages:\n${cut(messages.join('\n---\n'), TRIM.messageChars) || '(none besides the title)'}`,
    `Diff:\n${trimmedDiff(pr.patch)}`,
  ].join('\n\n');
}
