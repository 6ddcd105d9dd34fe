import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { git } from '../../../src/git';
import { scanCandidates } from './candidates';
import { writeDossiers } from './dossiers';
import { readLandedPrs } from './landed-prs';

const USAGE = 'usage: node dist/test/mining/labels/candidates-main.js CLONE DOSSIER_DIR SCAN.jsonl [OWNER/NAME]';

/**
 * The label scan of one clone (with pull refs): candidate pairs, the labellers' dossiers in
 * DOSSIER_DIR, and SCAN.jsonl for the coordinator (which scans proposed each pair, and the blamed
 * lines), kept apart from the dossiers. OWNER/NAME limits URL references to that repository.
 */
async function main(): Promise<number> {
  const [clone, dossiers, scanOut, repo] = process.argv.slice(2);
  if (!clone || !dossiers || !scanOut) return fail(USAGE);
  if (!existsSync(clone)) return fail(`${clone} does not exist`);
  const pullRefs = await git(clone, ['for-each-ref', '--format=%(refname)', 'refs/pull/']);
  const pullNumbers = new Set(
    pullRefs
      .split('\n')
      .map((ref) => /^refs\/pull\/(\d+)\//.exec(ref)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number),
  );
  if (pullNumbers.size === 0) return fail(`${clone} has no refs/pull/*: fetch them as ../shared/repos/README.md says`);

  const started = Date.now();
  const { prs, skipped } = await readLandedPrs(clone);
  const read = Date.now();
  const landings = count(prs.map((pr) => pr.landing));
  console.error(
    `${prs.length} merged PRs read in ${seconds(read - started)} s (${JSON.stringify(landings)}); no landing commit found for ${skipped.length}: ${skipped.join(' ')}`,
  );
  const { candidates, texts } = await scanCandidates(clone, prs, pullNumbers, {
    repo,
    progress: (done) => done % 100 === 0 && console.error(`  blamed ${done}/${prs.length}`),
  });
  const scanned = Date.now();
  const stats = await writeDossiers(clone, dossiers, prs, texts, candidates);
  const written = Date.now();

  await mkdir(dirname(scanOut), { recursive: true });
  await writeFile(scanOut, candidates.map((candidate) => JSON.stringify(candidate)).join('\n') + '\n');
  const kinds = count(
    candidates.map((c) => (c.scans.includes('blame') ? (c.scans.length > 1 ? 'both' : 'blame') : 'text')),
  );
  const perLater = stats.files.map((file) => file.pairs);
  const summary = {
    clone,
    mergedPrs: prs.length,
    skipped: skipped.length,
    landings,
    pairs: candidates.length,
    kinds,
    byScan: count(candidates.flatMap((c) => c.scans)),
    laterPrs: perLater.length,
    laterWithOver20: perLater.filter((n) => n > 20).length,
    maxPerLater: Math.max(0, ...perLater),
    dossierBytes: stats.files.reduce((sum, file) => sum + file.bytes, 0),
    seconds: { read: seconds(read - started), scan: seconds(scanned - read), dossiers: seconds(written - scanned) },
  };
  console.log(JSON.stringify(summary));
  return 0;
}

function count(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function fail(message: string): number {
  console.error(`error: ${message}`);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
