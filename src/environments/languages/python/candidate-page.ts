import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from '../../host-tools';
import { isTable, parseToml, requirementName, tomlString, tomlTable } from './pyproject';
import { GLIBC_MINOR } from './wheel-tags';

/** One pinned release's files as uv lists them for the target (a pylock.toml package). */
export interface LockedRelease {
  name: string;
  /** `url#sha256=…` of its sdist and of each wheel uv finds compatible with the target. */
  links: string[];
  /** At least one wheel, and every file an index URL (not a local path). */
  wheels: number;
  local: boolean;
}

/**
 * A page of links (pip's `--find-links` format) holding only the pinned releases' files, so that `pip
 * download` evaluates a handful of links instead of every file of every release on each package's index
 * page (coverage's: 9,556 links parsed and tag-checked before pip filters by version; 1.9 CPU-s against
 * 0.6 for three pins). pip still chooses among them by its own tags and preference, so it takes the file
 * it would take from the index, provided the page holds that file: a release qualifies only where uv
 * lists at least one compatible wheel from the index. uv's compatible wheels for a manylinux target are
 * every manylinux tag pip is given and ranks first; the one tag pip is given that uv leaves out,
 * `linux_x86_64` (which PyPI refuses), ranks last, below any of them. A release with no such wheel (an
 * sdist only, or files found in a local directory) is not on the page: pip downloads it from the index as
 * before. No date limit: the pins are exact, and pip downloads without one.
 */
export async function candidatePage(
  uv: string,
  python: string,
  pyVersion: string,
  env: Record<string, string>,
  pins: string[],
  dir: string,
  signal?: AbortSignal,
): Promise<{ page: string; covered: Set<string> } | undefined> {
  const input = join(dir, 'pins.txt');
  const lock = join(dir, 'pylock.toml');
  await writeFile(input, pins.join('\n') + '\n');
  const r = await runTool(
    uv,
    [
      'pip',
      'compile',
      input,
      '--no-deps',
      '--python',
      python,
      '--no-python-downloads',
      '--python-version',
      pyVersion,
      '--python-platform',
      `x86_64-manylinux_2_${GLIBC_MINOR}`,
      '--format',
      'pylock.toml',
      '--quiet',
      '-o',
      lock,
    ],
    { cwd: dir, env, signal },
  );
  if (r.code !== 0) return undefined;
  const releases = lockedReleases(await readFile(lock, 'utf8'));
  const usable = releases.filter((p) => p.wheels > 0 && !p.local);
  if (!usable.length) return undefined;
  const page = join(dir, 'candidates.html');
  const anchors = usable.flatMap((p) =>
    p.links.map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(decodeURIComponent(fileName(l)))}</a>`),
  );
  await writeFile(page, `<!DOCTYPE html>\n<html><body>\n${anchors.join('\n')}\n</body></html>\n`);
  return { page, covered: new Set(usable.map((p) => p.name)) };
}

/**
 * The packages of a pylock.toml (PEP 751): each `[[packages]]` entry's name, its sdist's and wheels'
 * URLs with their sha256, and whether any file is a local path. A lock that is not TOML lists nothing
 * (the fetch then asks the index, as without a page); a file without a sha256 is no link (pip would
 * take it unchecked).
 */
export function lockedReleases(toml: string): LockedRelease[] {
  const packages = parseToml(toml)?.packages;
  return (Array.isArray(packages) ? packages : [])
    .filter(isTable)
    .map((p) => {
      const wheels = Array.isArray(p.wheels) ? p.wheels : [];
      const files = [p.sdist, ...wheels].filter(isTable);
      const links = files.flatMap((f) => {
        const sha256 = tomlString(tomlTable(f, 'hashes'), 'sha256');
        const url = tomlString(f, 'url');
        return url && sha256 ? [{ url, sha256 }] : [];
      });
      return {
        name: requirementName(tomlString(p, 'name') ?? ''),
        links: links.map((l) => `${l.url}#sha256=${l.sha256}`),
        wheels: links.filter((l) => /\.whl$/.test(l.url)).length,
        local: files.some((f) => tomlString(f, 'path') !== undefined),
      };
    })
    .filter((p) => p.name);
}

const fileName = (link: string) => link.split('#')[0].split('/').pop() ?? link;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
