import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastReleases, must, type Release } from './release';

/**
 * A Go module's last `count` tagged releases (pre-releases left out), from the host's module proxy
 * (`go list -m -versions`, `go mod download`), each dated by the proxy's `.info` time.
 */
export async function goReleases(module: string, count: number, work: string): Promise<Release[]> {
  await must('mkdir', ['-p', work]);
  const env = { GOMODCACHE: join(work, 'gomodcache'), GOFLAGS: '-mod=mod', GO111MODULE: 'on' };
  const listed = JSON.parse(await must('go', ['list', '-m', '-versions', '-json', module], { cwd: work, env })) as {
    Versions?: string[];
  };
  const versions = lastReleases(
    module,
    (listed.Versions ?? []).filter((v) => !v.includes('-')),
    count,
  );
  const releases: Release[] = [];
  for (const version of versions) {
    const got = JSON.parse(
      await must('go', ['mod', 'download', '-json', `${module}@${version}`], { cwd: work, env }),
    ) as {
      Dir: string;
      Info: string;
    };
    const info = JSON.parse(await readFile(got.Info, 'utf8')) as { Time?: string };
    const tree = join(work, 'trees', `${module.replace(/\//g, '+')}@${version}`);
    await must('mkdir', ['-p', tree]);
    await must('cp', ['-r', `${got.Dir}/.`, tree]);
    await must('chmod', ['-R', 'u+w', tree]);
    releases.push({ version, date: info.Time, dir: tree });
  }
  return releases;
}
