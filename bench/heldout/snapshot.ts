import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions } from '../../src/environments/languages/host-command';
import { lastReleases, must, type Release } from './release';

/**
 * The git directory of a local snapshot of `github.com/OWNER/NAME` (a mirror with its tags, such as the
 * search tool's `fetch` makes: `<dir>/OWNER+NAME/repo`) under `CHAINSMITH_HELDOUT_SNAPSHOTS`, or
 * undefined where none is there.
 */
export function snapshotOf(name: string): string | undefined {
  const root = process.env.CHAINSMITH_HELDOUT_SNAPSHOTS;
  const [, owner, repo] = name.split('/');
  const dir = root && owner && repo ? join(root, `${owner}+${repo}`, 'repo') : undefined;
  return dir && existsSync(dir) ? dir : undefined;
}

const SEMVER = /^v?\d+\.\d+\.\d+$/;

/**
 * A GitHub repository's last `count` semver tags (pre-releases left out), read from its local snapshot,
 * each the repository's whole tree at the tag (checked out, so `export-ignore` drops nothing), dated by
 * the tagged commit's committer time. Nothing is written into the snapshot: the index is a temporary one.
 */
export async function snapshotReleases(name: string, count: number, work: string): Promise<Release[]> {
  const gitDir = snapshotOf(name);
  if (!gitDir) throw new Error(`${name}: no snapshot under CHAINSMITH_HELDOUT_SNAPSHOTS`);
  const tags = (await must('git', ['--git-dir', gitDir, 'tag', '--list']))
    .split('\n')
    .filter((t) => SEMVER.test(t))
    .sort((a, b) => compareVersions(a.replace(/^v/, ''), b.replace(/^v/, '')));
  const releases: Release[] = [];
  for (const tag of lastReleases(name, tags, count)) {
    const tree = join(work, 'trees', tag);
    await must('mkdir', ['-p', tree]);
    const env = { GIT_DIR: gitDir, GIT_INDEX_FILE: join(work, `index-${tag}`), GIT_WORK_TREE: tree };
    await must('git', ['read-tree', `${tag}^{commit}`], { env });
    await must('git', ['checkout-index', '-a', '-f'], { cwd: tree, env });
    const date = (await must('git', ['--git-dir', gitDir, 'log', '-1', '--format=%cI', `${tag}^{commit}`])).trim();
    releases.push({ version: tag, date, dir: tree });
  }
  return releases;
}
