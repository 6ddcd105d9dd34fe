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
    p.links.map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(listedFileName(l) ?? l.split('#')[0])}</a>`),
  );
  await writeFile(page, `<!DOCTYPE html>\n<html><body>\n${anchors.join('\n')}\n</body></html>\n`);
  return { page, covered: new Set(usable.map((p) => p.name)), only };
}

/** The one file of a release pip could take (see candidatePage), else undefined. */
export function onlyChoice(p: LockedRelease): string | undefined {
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
 * venv's Python (its certificates, `SSL_CERT_FILE` as uv's settings give it, and proxies as pip and uv
 * take them, `ALL_PROXY` included), and keeps each only where its sha256 is the listed one. After a
 * failure to connect or read (not an HTTP status) it tries no more: the index is likely out of reach
 * this way, and pip, asked for the rest, waits for one timeout instead of one a file. Returns the links
 * downloaded, and why the first of the others was not (its file name, never its URL, which may hold
 * credentials).
 */
export async function downloadListed(
  python: string,
  links: string[],
  dest: string,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ done: Set<string>; firstFailure?: string }> {
  const refused: string[] = [];
  const args = links.flatMap((l) => {
    const m = /^([^#]+)#sha256=([0-9a-f]{64})$/.exec(l);
    const name = listedFileName(l);
    if (!m || !name) {
      refused.push(name ? `${name}: no sha256 listed` : 'a file whose URL names no plain file');
      return [];
    }
    return [m[1], m[2], join(dest, name)];
  });
  if (!args.length) return { done: new Set(), firstFailure: refused[0] };
  const r = await runTool(python, ['-c', DOWNLOAD, ...args], {
    env: { ...env, PYTHONDONTWRITEBYTECODE: '1' },
    ...(signal ? { signal } : {}),
  });
  const lines = r.stdout.split('\n');
  const done = new Set(lines.filter((l) => l.startsWith('ok ')).map((l) => l.slice(3)));
  const failed = lines.filter((l) => l.startsWith('failed ')).map((l) => l.slice(7));
  return {
    done: new Set(links.filter((l) => done.has(l.split('#')[0]))),
    firstFailure: refused[0] ?? failed[0] ?? (r.code !== 0 ? `the download script exited with ${r.code}` : undefined),
  };
}

/**
 * Each (url, sha256, path) triple downloaded and checked: `ok <url>` for each file kept, `failed <file
 * name>: <why>` for one that is not (no URL: it may hold a token); after a connection failure, none more.
 * urllib takes no `all_proxy`, which pip and uv honour, so it stands in for an unset http(s) proxy.
 */
const DOWNLOAD = `import hashlib, os, ssl, sys, urllib.error, urllib.request
context = ssl.create_default_context(cafile=os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT"))
proxies = urllib.request.getproxies()
for scheme in ("http", "https"):
    if scheme not in proxies and "all" in proxies:
        proxies[scheme] = proxies["all"]
opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies), urllib.request.HTTPSHandler(context=context))
args = sys.argv[1:]
for url, sha256, out in zip(args[0::3], args[1::3], args[2::3]):
    name = os.path.basename(out)
    try:
        with opener.open(url, timeout=30) as r:
            data = r.read()
    except urllib.error.HTTPError as e:
        print("failed", name + ": HTTP", e.code)
        continue
    except Exception as e:
        reason = e.reason if isinstance(getattr(e, "reason", None), BaseException) else e
        detail = reason.strerror if isinstance(reason, OSError) and reason.strerror else ""
        print("failed", name + ":", type(reason).__name__, detail)
        break
    if hashlib.sha256(data).hexdigest() != sha256:
        print("failed", name + ": not the listed sha256")
        continue
    try:
        with open(out + ".part", "wb") as f:
            f.write(data)
        os.rename(out + ".part", out)
    except OSError as e:
        print("failed", name + ":", type(e).__name__, e.strerror or "")
        try:
            os.unlink(out + ".part")
        except OSError:
            pass
        continue
    print("ok", url)
`;

/**
 * The name a listed file is saved under: the last segment of its URL's path, decoded (no query string,
 * no fragment). Undefined where that is empty or could leave the directory (`/` or `..` in it): such a
 * file is left to pip.
 */
export function listedFileName(link: string): string | undefined {
  try {
    const name = decodeURIComponent(new URL(link).pathname.split('/').pop() ?? '');
    return name && !name.includes('/') && !name.includes('..') ? name : undefined;
  } catch {
    return undefined;
  }
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
