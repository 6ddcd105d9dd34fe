import { writeFileSync } from 'node:fs';
import { readLocalPullRequests } from '../../../src/mining/local-git';
import { candidatePairs } from './candidates';

/** node candidates-main.js CLONE OUT.jsonl: the candidate pairs a labeller then reads (see README.md). */
async function main(): Promise<void> {
  const [clone, out] = process.argv.slice(2);
  const { prs, pullNumbers } = await readLocalPullRequests(clone);
  const candidates = await candidatePairs(clone, prs, pullNumbers);
  writeFileSync(out, candidates.map((candidate) => JSON.stringify(candidate)).join('\n') + '\n');
  console.error(`${prs.length} PRs, ${candidates.length} candidate pairs → ${out}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
