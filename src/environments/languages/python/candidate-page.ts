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
  /** The files uv lists, with a sha256 or not. */
  files: number;
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
 * `only`: the releases with one file pip could take, each with its link, which downloadListed fetches
 * without pip: an sdist where uv lists no wheel (pip is offered no wheel it could install, its tags being
 * among uv's, and it would prepare the sdist's metadata in a build environment it installs from the
 * index, setup_requires and all), or the one wheel uv lists where it is pure Python (`none-any`, which
 * every interpreter of its Python tag installs, and pip ranks above the sdist). Only where every file
 * uv lists has its sha256. The page holds the other releases. Not always pip's file: uv lists one sdist
 * a release, so where an old release has two (setuptools 1.1: a .zip and a .tar.gz) uv lists the
 * .tar.gz and pip would take the .zip.
 */
export async function candidatePage(
  uv: string,
  python: string,
  pyVersion: string,
  env: Record<string, string>,
  pins: string[],
  dir: string,
  signal?: AbortSignal,
): Promise<{ page?: string; covered: Set<string>; only: Map<string, string> } | undefined> {
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
  const only = new Map(releases.flatMap((p) => (onlyChoice(p) ? [[p.name, onlyChoice(p)!] as const] : [])));
  const usable = releases.filter((p) => p.wheels > 0 && !p.local && !only.has(p.name));
  if (!usable.length) return { covered: new Set(), only };
  const page = join(dir, 'candidates.html');
  const anchors = usable.flatMap((p) =>
    p.links.map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(decodeURIComponent(fileName(l)))}</a>`),
  );
  await writeFile(page, `<!DOCTYPE html>\n<html><body>\n${anchors.join('\n')}\n</body></html>\n`);
  return { page, covered: new Set(usable.map((p) => p.name)), only };
}

/** The one file of a release pip could take (see candidatePage), else undefined. */
function onlyChoice(p: LockedRelease): string | undefined {
  if (p.local || p.links.length !== p.files) return undefined;
  const wheels = p.links.filter((l) => /\.whl#/.test(l));
  if (!wheels.length) return p.links.length === 1 ? p.links[0] : undefined;
  return wheels.length === 1 && /-none-any\.whl#/.test(wheels[0]) ? wheels[0] : undefined;
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
        files: files.length,
        local: files.some((f) => tomlString(f, 'path') !== undefined),
      };
    })
    .filter((p) => p.name);
}

/**
 * Downloads listed files (`url#sha256=…`) into `dest` under their own names, in one run of the tools
 * venv's Python (its certificates and proxies, `SSL_CERT_FILE` as uv's settings give it), and keeps
 * each only where its sha256 is the listed one. Returns the links downloaded: the caller asks pip for
 * the rest.
 */
export async function downloadListed(
  python: string,
  links: string[],
  dest: string,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const args = links.flatMap((l) => {
    const m = /^([^#]+)#sha256=([0-9a-f]{64})$/.exec(l);
    return m ? [m[1], m[2], join(dest, decodeURIComponent(fileName(l)))] : [];
  });
  if (!args.length) return new Set();
  const r = await runTool(python, ['-c', DOWNLOAD, ...args], {
    env: { ...env, PYTHONDONTWRITEBYTECODE: '1' },
    ...(signal ? { signal } : {}),
  });
  const done = new Set(r.stdout.split('\n').filter((l) => l));
  return new Set(links.filter((l) => done.has(l.split('#')[0])));
}

/** Each (url, sha256, path) triple downloaded and checked; the URLs kept are printed, one a line. */
const DOWNLOAD = `import hashlib, os, ssl, sys, urllib.request
context = ssl.create_default_context(cafile=os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT"))
args = sys.argv[1:]
for url, sha256, out in zip(args[0::3], args[1::3], args[2::3]):
    try:
        with urllib.request.urlopen(url, context=context, timeout=180) as r:
            data = r.read()
    except Exception as e:
        print(url, e, file=sys.stderr)
        continue
    if hashlib.sha256(data).hexdigest() == sha256:
        with open(out + ".part", "wb") as f:
            f.write(data)
        os.rename(out + ".part", out)
        print(url)
`;

const fileName = (link: string) => link.split('#')[0].split('/').pop() ?? link;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
