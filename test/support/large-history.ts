import { mkdir } from 'node:fs/promises';
import { git } from '../../src/git';

export interface LargeHistory {
  path: string;
  /** SHAs of every commit, oldest first. */
  commits: string[];
}

/**
 * A Python package with a long, plausible history for benchmarks, written with one `git fast-import`:
 * `files` modules, each commit editing one to three of them. Dates are fixed, so the same arguments
 * always give the same SHAs.
 */
export async function writeLargeHistory(path: string, opts: { commits: number; files: number }): Promise<LargeHistory> {
  await mkdir(path, { recursive: true });
  await git(path, ['-c', 'init.defaultBranch=main', 'init', '-q']);
  const versions = new Array<number>(opts.files).fill(0);
  const file = (i: number) => `pkg/part_${Math.floor(i / 100)}/mod_${i}.py`;
  // About 3 KB a module, of which a commit changes two lines: sizes like a real package's.
  const body = (i: number) =>
    Array.from(
      { length: 24 },
      (_, f) =>
        `\n\ndef helper_${i}_${f}(values, scale=${f + 1}):\n    """Scale the values of part ${f} of module ${i}."""\n    return [v * scale for v in values]\n`,
    ).join('');
  const bodies = Array.from({ length: opts.files }, (_, i) => body(i));
  const content = (i: number) =>
    `"""Module ${i} of the synthetic package."""\n\nVERSION = ${versions[i]}\n${bodies[i]}\n\ndef value_${i}(x):\n    return x * ${versions[i] + 1} + ${i}\n`;
  const chunks: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = Date.UTC(2020, 0, 1) / 1000;
  const commit = (mark: number, message: string, changes: string[]) => {
    time += 60;
    const who = `Ada Lovelace <ada@example.test> ${time} +0000`;
    chunks.push(
      `commit refs/heads/main\nmark :${mark}\nauthor ${who}\ncommitter ${who}\n${data(message)}${mark > 1 ? `from :${mark - 1}\n` : ''}${changes.join('')}\n`,
    );
  };
  const put = (p: string, text: string) => `M 100644 inline ${p}\n${data(text)}`;
  const initial = [
    put(
      'pyproject.toml',
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "pkg"\nversion = "1.0.0"\n',
    ),
    put('pkg/__init__.py', ''),
    put('README.md', '# pkg\n'),
  ];
  for (let i = 0; i < opts.files; i++) initial.push(put(file(i), content(i)));
  for (let d = 0; d * 100 < opts.files; d++) initial.push(put(`pkg/part_${d}/__init__.py`, ''));
  commit(1, 'Initial import', initial);
  for (let c = 2; c <= opts.commits; c++) {
    const touched = new Set(
      [(c * 7919) % opts.files, (c * 104729) % opts.files, (c * 13) % opts.files].slice(0, 1 + (c % 3)),
    );
    const changes = [...touched].map((i) => {
      versions[i] += 1;
      return put(file(i), content(i));
    });
    commit(c, `Change ${[...touched].map((i) => `mod_${i}`).join(', ')}`, changes);
  }
  const marks = `${path}/.git/bench-marks`;
  await git(path, ['fast-import', '--quiet', '--done', `--export-marks=${marks}`], {
    input: `${chunks.join('')}done\n`,
  });
  // Packed and with a commit-graph, as a maintained clone is.
  await git(path, ['repack', '-adq']);
  await git(path, ['commit-graph', 'write', '--reachable']);
  await git(path, ['checkout', '-q', '-f', 'main']);
  const commits = (await git(path, ['rev-list', '--reverse', 'main'])).trim().split('\n');
  return { path, commits };
}
