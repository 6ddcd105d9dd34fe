import { readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { LANGUAGES } from '../../src/environments/languages';
import { git } from '../../src/git';
import { cloneBundle, SHARED_REPOS } from '../../test/support/real-repos';

/** A repository of ../shared/repos: its name as the bundle's file spells it (`owner+name` → `owner/name`), its clone, its language. */
export interface BundledRepo {
  name: string;
  bundle: string;
  clone: string;
  language: string;
}

/** Code kept for someone else: it casts no vote for the repository's language. */
const NOT_OWN = /(^|\/)(vendor|third_party|third-party|node_modules|external|deps)\//;

/**
 * Every bundle in ../shared/repos, whatever repositories it holds (the steering side replaces them),
 * each with the language whose code files (LanguageSupport.files.code) are the most at its HEAD.
 */
export async function bundledRepos(): Promise<BundledRepo[]> {
  const bundles = (await readdir(SHARED_REPOS).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.bundle'))
    .map((f) => f.slice(0, -'.bundle'.length))
    .sort();
  const repos: BundledRepo[] = [];
  for (const bundle of bundles) {
    const clone = await cloneBundle(bundle);
    repos.push({ name: bundle.replace('+', '/'), bundle, clone, language: await languageOf(clone) });
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
