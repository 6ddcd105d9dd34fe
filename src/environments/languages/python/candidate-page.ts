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
 *
 * `sdistOnly`: the releases uv lists no wheel of but an sdist from the index, each with its link. pip
 * would take that sdist (it is offered no wheel it could install: its tags are among uv's), after
 * preparing its metadata in a build environment it installs from the index (setup_requires and all),
 * which the fetch needs no more than uv did: listedSdist downloads the file itself.
 */
export async function candidatePage(
  uv: string,
  python: string,
  pyVersion: string,
  env: Record<string, string>,
  pins: string[],
  dir: string,
  signal?: AbortSignal,
): Promise<{ page?: string; covered: Set<string>; sdistOnly: Map<string, string> } | undefined> {
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
  const sdistOnly = new Map(
    releases.filter((p) => p.wheels === 0 && !p.local && p.links.length === 1).map((p) => [p.name, p.links[0]]),
  );
  const usable = releases.filter((p) => p.wheels > 0 && !p.local);
  if (!usable.length) return { covered: new Set(), sdistOnly };
  const page = join(dir, 'candidates.html');
  const anchors = usable.flatMap((p) =>
    p.links.map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(decodeURIComponent(fileName(l)))}</a>`),
  );
  await writeFile(page, `<!DOCTYPE html>\n<html><body>\n${anchors.join('\n')}\n</body></html>\n`);
  return { page, covered: new Set(usable.map((p) => p.name)), sdistOnly };
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

/**
 * Downloads a listed file (`url#sha256=…`) into `dest` under its own name, run by the tools venv's Python
 * (its certificates, proxies and `SSL_CERT_FILE` as pip's would be), and keeps it only where its
 * sha256 is the listed one. False where it could not: the caller asks pip instead.
 */
export async function downloadListed(
  python: string,
  link: string,
  dest: string,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<boolean> {
  const [url, sha256] = [link.split('#')[0], /#sha256=([0-9a-f]{64})$/.exec(link)?.[1]];
  if (!sha256) return false;
  const r = await runTool(python, ['-c', DOWNLOAD, url, sha256, join(dest, decodeURIComponent(fileName(link)))], {
    env: { ...env, PYTHONDONTWRITEBYTECODE: '1' },
    ...(signal ? { signal } : {}),
  });
  return r.code === 0;
}

const DOWNLOAD = `import hashlib, os, ssl, sys, urllib.request
url, sha256, out = sys.argv[1:4]
context = ssl.create_default_context(cafile=os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT"))
with urllib.request.urlopen(url, context=context, timeout=180) as r:
    data = r.read()
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit("sha256 differs from the listed one")
with open(out + ".part", "wb") as f:
    f.write(data)
os.rename(out + ".part", out)
`;

const fileName = (link: string) => link.split('#')[0].split('/').pop() ?? link;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
