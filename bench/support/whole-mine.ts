import { mkdir, readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { packageRoot } from '../../src/paths';
import { run } from '../../src/process/run';
import { bundlePath, cloneBundle } from '../../test/support/real-repos';
import type { Figure } from '../figure';

const REAL = ['pallets+jinja', 'serde-rs+json', 'spf13+cobra', 'jhy+jsoup', 'DaveGamble+cJSON'];
const say = (line: string) => console.error(`[mining] ${line}`);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * A whole `chainsmith mine --repo` of each bundled repository, as a user runs it: history, patches,
 * links, blame (the default window), chains and the files written, in a fresh data directory with no
 * cursor, under /usr/bin/time -v. Its peak RSS is the largest of the mine's processes (the CLI's Node
 * or one of its git children), not the bench's.
 */
export async function wholeMineFigures(root: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const bundle of REAL.filter((name) => bundlePath(name))) {
    const name = bundle.replace('+', '/');
    const short = bundle.split('+')[1].toLowerCase();
    const clone = await cloneBundle(bundle);
    const dir = join(root, `mine-${short}`);
    await mkdir(dir, { recursive: true });
    const load = loadavg()[0];
    const started = performance.now();
    const out = await run(
      '/usr/bin/time',
      [
        '-v',
        process.execPath,
        join(packageRoot(), 'bin/chainsmith.js'),
        'mine',
        '--repo',
        clone,
        '--name',
        name,
        '--out',
        join(dir, 'chains.jsonl'),
        '--fresh',
      ],
      {
        env: { CHAINSMITH_HOME: dir },
        // A bench told to stop ends the mine under time too (src/process/end-on-signals.ts).
        ownGroup: true,
        maxOutputBytes: 64 * 1024 * 1024,
      },
    );
    if (out.exitCode !== 0)
      throw new Error(`chainsmith mine of ${name} failed: ${(out.startError?.message ?? out.stderr).slice(-2000)}`);
    const seconds = (performance.now() - started) / 1000;
    const field = (label: string) => Number(new RegExp(`${label}: ([\\d.]+)`).exec(out.stderr)?.[1] ?? NaN);
    const peakMb = field('Maximum resident set size \\(kbytes\\)') / 1024;
    const cpu = field('User time \\(seconds\\)') + field('System time \\(seconds\\)');
    const summary = JSON.parse(await readFile(join(dir, 'chains.summary.json'), 'utf8')) as {
      prsSeen: number;
      commits: number;
      chains: number;
      edgesByKind: Record<string, number>;
    };
    const context = `${summary.prsSeen} merged PRs, ${summary.commits} commits, ${summary.edgesByKind['code-history'] ?? 0} blame links, ${summary.chains} chains; CPU ${round(cpu, 1)} s; load ${load.toFixed(2)} on ${availableParallelism()} cores at the start`;
    say(`whole mine of ${name}: ${round(seconds, 1)} s, peak RSS ${round(peakMb, 1)} MiB (${context})`);
    figures.push(
      {
        measure: `mine_seconds_per_1000_prs_${short}`,
        value: round((seconds / summary.prsSeen) * 1000, 2),
        unit: 's',
        goal: `context: wall time of a whole chainsmith mine, blame included, per 1,000 PRs read (${context})`,
      },
      {
        measure: `mine_peak_rss_mb_${short}`,
        value: round(peakMb, 1),
        unit: 'MiB',
        goal: `context: the largest peak RSS of the mine's processes (Node or git) (${context})`,
      },
    );
  }
  return figures;
}
