import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { LANGUAGES } from '../../src/environments/languages';
import { git } from '../../src/git';
import { cloneSource, SHARED_REPOS } from '../../test/support/real-repos';

/** A repository of ../shared/repos: its name as the bundle's file spells it (`owner+name` → `owner/name`), its clone, its language. */
export interface BundledRepo {
  name: string;
  bundle: string;
  clone: string;
  language: string;
}

/** Code kept for someone else: it casts no vote for the repository's language. */
const NOT_OWN = /(^|\/)(vendor|third_party|third-party|node_modules|external|deps)\//;

/** Where the bench's repositories are: CHAINSMITH_BENCH_REPOS, else ../shared/repos. */
export const reposDir = (): string => process.env.CHAINSMITH_BENCH_REPOS || SHARED_REPOS;

/**
 * The repositories the bench measures: every bundle in ../shared/repos, whatever it holds (the
 * steering side replaces them), or in CHAINSMITH_BENCH_REPOS where set, a directory of bundles
 * (`OWNER+NAME.bundle`) and git directories (`OWNER+NAME/repo`, as the search tool's `fetch` leaves a
 * snapshot of a repository with its pull refs); each with the language whose code files
 * (LanguageSupport.files.code) are the most at its HEAD.
 */
export async function bundledRepos(dir = reposDir()): Promise<BundledRepo[]> {
  const sources: Array<[string, string]> = [];
  for (const entry of (await readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.isFile() && entry.name.endsWith('.bundle'))
      sources.push([entry.name.slice(0, -'.bundle'.length), join(dir, entry.name)]);
    else if (entry.isDirectory() && existsSync(join(dir, entry.name, 'repo', 'HEAD')))
      sources.push([entry.name, join(dir, entry.name, 'repo')]);
  }
  const repos: BundledRepo[] = [];
  for (const [bundle, source] of sources) {
    // A name given twice (a bundle and a git directory) is measured once; a source that cannot be cloned, or whose language none is, is skipped, said.
    if (repos.some((r) => r.bundle === bundle)) continue;
    const clone = await cloneSource(bundle, source).catch((err: Error) => {
      console.error(`[validation] ${bundle}: skipped, it cannot be cloned (${err.message.split('\n')[0]})`);
    });
    if (!clone) continue;
    const language = await languageOf(clone);
    if (language === 'unknown')
      console.error(`[validation] ${bundle}: skipped, no code of a language chainsmith knows`);
    else repos.push({ name: bundle.replace('+', '/'), bundle, clone, language });
  }
  return repos;
}

/** The language of the most code files at HEAD ('unknown' where none is any language's). */
export async function languageOf(clone: string): Promise<string> {
  const byExtension = new Map(LANGUAGES.flatMap((l) => l.files.code.map((ext) => [ext, l.name] as const)));
  const counts = new Map<string, number>();
  for (const path of (await git(clone, ['ls-files', '-z'])).split('\0')) {
    const language = byExtension.get(extname(path).slice(1).toLowerCase());
    if (language && !NOT_OWN.test(path)) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'unknown';
}
