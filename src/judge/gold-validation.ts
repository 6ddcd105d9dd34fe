import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import { DockerSandbox, REPO_DIR, type SandboxSpec } from '../sandbox/docker-sandbox';
import { GoldTestsSchema, type Chain, type GoldTests, type PullRequest, type TestCase } from '../schemas';
import { prTestCommand, prTestFiles, quotePaths, runTests } from './test-signal';

const passes = (outcome?: TestCase['outcome']) => outcome === 'passed' || outcome === 'xpassed';

/** FAIL_TO_PASS and PASS_TO_PASS from the per-test outcomes before and after the gold change. */
export function classifyTests(before: TestCase[], after: TestCase[], command: string): GoldTests {
  const was = new Map(before.map((c) => [c.id, c.outcome]));
  const gold: GoldTests = { command, failToPass: [], passToPass: [], brokenOnGold: [] };
  for (const { id, outcome } of after) {
    if (!passes(outcome)) gold.brokenOnGold.push(id);
    else if (passes(was.get(id))) gold.passToPass.push(id);
    else gold.failToPass.push(id);
  }
  return gold;
}

/**
 * Runs the PR's tests (their PR versions) at the PR's base and at its merge, in a sandbox holding the
 * repository mirror, and sorts them into FAIL_TO_PASS and PASS_TO_PASS. A test runner without a
 * per-test report yields empty lists, and the judge falls back to the exit code.
 */
export async function validateGold(sandbox: DockerSandbox, pr: PullRequest, testCommand: string, timeoutSeconds: number): Promise<GoldTests> {
  const files = prTestFiles(pr);
  const command = prTestCommand(testCommand, files);
  if (!files.length) return { command, failToPass: [], passToPass: [], brokenOnGold: [] };
  const sh = async (script: string) => {
    const r = await sandbox.exec(script, { timeoutSeconds: 600, maxOutputChars: 8_000, cwd: '/work' });
    if (r.exitCode !== 0) throw new StageError(`gold validation of PR #${pr.number} could not check out the repository:\n${r.output}`);
  };
  await sh(`rm -rf ${REPO_DIR} && git clone -q --no-checkout --shared /mirror ${REPO_DIR} && cd ${REPO_DIR} && git checkout -q --detach ${pr.baseSha} && git checkout ${pr.mergeSha} -- ${quotePaths(files)}`);
  const before = await runTests(sandbox, command, timeoutSeconds);
  await sh(`cd ${REPO_DIR} && git checkout -q --force --detach ${pr.mergeSha} && git clean -qfdx`);
  const after = await runTests(sandbox, command, timeoutSeconds);
  return classifyTests(before.cases ?? [], after.cases ?? [], command);
}

export interface GoldValidationDeps {
  docker: Docker;
  store: ArtifactStore;
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels'>;
  testCommand: string;
  timeoutSeconds?: number;
}

/**
 * The gold validation of one stage, computed once per PR merge and test command and kept in the
 * artifact store (a retried activity or a second chain through the same PR reuses it).
 */
export async function goldTestsFor(deps: GoldValidationDeps, chain: Chain, stage: number): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const key = createHash('sha256').update(`${pr.baseSha} ${pr.mergeSha} ${deps.testCommand}`).digest('hex').slice(0, 24);
  const pointer = `gold-tests/${key}`;
  const known = await deps.store.getPointer(pointer);
  if (known) return deps.store.getJson(known, GoldTestsSchema);
  const sandbox = await DockerSandbox.create(deps.docker, {
    ...deps.sandbox,
    mirrorPath: chain.repo.path,
    labels: { 'chainsmith.gold': `${pr.number}` },
  });
  try {
    const gold = await validateGold(sandbox, pr, deps.testCommand, deps.timeoutSeconds ?? 600);
    await deps.store.setPointer(pointer, await deps.store.putJson(gold));
    return gold;
  } finally {
    await sandbox.destroy();
  }
}
