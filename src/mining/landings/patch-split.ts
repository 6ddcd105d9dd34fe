import { fileKind } from '../file-kind';

/** Where each file's section of a git diff starts. */
const SECTION = /^diff --git /gm;

/**
 * The path a diff section is about: the new name ("+++ b/…", "rename to …"), or the old one for a
 * deletion. The header line alone is ambiguous when paths contain " b/".
 */
function sectionPath(section: string): string {
  const lines = section.split('\n');
  const after = lines.find(
    (line) => line.startsWith('+++ b/') || line.startsWith('rename to ') || line.startsWith('copy to '),
  );
  if (after) return after.replace(/^(\+\+\+ b\/|rename to |copy to )/, '');
  const before = lines.find((line) => line.startsWith('--- a/'));
  if (before) return before.slice('--- a/'.length);
  // Binary and mode-only changes name the file only in the header: "diff --git a/p b/p".
  // With both names equal, the header is "a/" + p + " b/" + p.
  const header = lines[0].slice('diff --git a/'.length);
  return header.slice(0, (header.length - ' b/'.length) / 2);
}

/** Splits a patch into the sections of test files and all the others, each in its original order. */
export function splitPatch(patch: string): { codePatch: string; testPatch: string } {
  const starts = [...patch.matchAll(SECTION)].map((match) => match.index ?? 0);
  let codePatch = patch.slice(0, starts[0] ?? patch.length);
  let testPatch = '';
  starts.forEach((start, i) => {
    const section = patch.slice(start, starts[i + 1] ?? patch.length);
    if (fileKind(sectionPath(section)) === 'test') testPatch += section;
    else codePatch += section;
  });
  return { codePatch, testPatch };
}
