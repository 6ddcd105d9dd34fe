import { createHash } from 'node:crypto';
import { prTestCommand, prTestFiles } from '../../src/environments/pr-tests';
import type { Environment } from '../../src/environments/builder';
import type { Chain } from '../../src/schemas';
import { cloneBundle, pullRequestChain } from '../../test/support/real-repos';
import type { ChatRequest, Reply } from '../../test/support/fake-openai';
import type { CallMarker } from '../../src/model/markers';
import { bashTool, scriptedModel } from '../../test/support/scripted-model';

/**
 * The real workload of the concurrency and prefix-reuse benches: Jinja's PR #1465 (filters taking
 * lists of attributes, 2022), a stage gold validation verifies (test/environments/languages/python/python-real.test.ts:
 * FAIL_TO_PASS tests in tests/test_filters.py, over a hundred PASS_TO_PASS).
 */
export const JINJA_PR = 1465;

export async function jinjaStage(): Promise<Chain> {
  const repo = await cloneBundle('pallets+jinja');
  return pullRequestChain(repo, 'pallets/jinja', JINJA_PR, 'main');
}

/**
 * What an agent does on that stage, as commands doing real work in the sandbox: it looks around, reads
 * the code and the tests the PR touches, searches, makes the PR's change, runs the PR's tests, looks at
 * its diff, runs them again, submits. The first command prints the sandbox's host name: from then on
 * every request of the rollout carries it, which is how the latency below tells rollouts apart.
 * `rounds` beyond the first (a refinement after feedback) read and test again.
 */
export function jinjaAgent(chain: Chain, env: Environment) {
  const pr = chain.prs[0];
  const code = pr.files.filter((f) => f.kind === 'code' && f.status !== 'added').map((f) => f.path);
  const tests = prTestFiles(pr);
  const testCommand = prTestCommand(env, tests);
  const first: string[] = [
    'echo "sandbox $(cat /etc/hostname)" && git log --oneline -3 && ls',
    ...code.map((f) => `sed -n 1,160p ${f}`),
    `grep -n "def \\|attribute" ${code.join(' ')} | head -60`,
    ...tests.map((f) => `sed -n 1,120p ${f} 2>/dev/null || echo "no ${f} yet"`),
    `git apply --3way - <<'CHAINSMITH_PATCH_END'\n${pr.patch}CHAINSMITH_PATCH_END`,
    testCommand,
    'git diff --stat',
  ];
  const again: string[] = [...code.map((f) => `sed -n 160,320p ${f}`), `git diff | head -120`, testCommand];
  const script = scriptedModel({
    agent: ({ round, step }): Reply => {
      const commands = round === 0 ? first : again;
      return step < commands.length
        ? bashTool(commands[step])
        : { toolCalls: [{ name: 'submit', args: { summary: `PR #${pr.number}: done after ${step} steps` } }] };
    },
  });
  return { script, steps: first.length + 1 };
}

/** Lognormal parameters: median 4 s, 95th percentile 20 s (σ = ln 5 / 1.645). */
export const LATENCY = { medianMs: 4000, p95Ms: 20_000, capMs: 90_000 };
const SIGMA = Math.log(LATENCY.p95Ms / LATENCY.medianMs) / 1.645;

/** The rollout a request belongs to: the sandbox host name its first command printed, '' before that. */
export function rolloutOf(request: ChatRequest): string {
  for (const m of request.messages) {
    if (m.role !== 'tool' || typeof m.content !== 'string') continue;
    const name = /^sandbox ([0-9a-f]{12})$/m.exec(m.content);
    if (name) return name[1];
  }
  return '';
}

/**
 * Every model call's latency, drawn from a lognormal (median 4 s, p95 20 s, capped at 90 s) seeded by
 * `seed`, the rollout, the caller and the step: the same rollout gets the same draws whenever it runs,
 * different rollouts different ones. A rollout's first call (before any command ran) draws the same in
 * every rollout. `drawn` keeps every call's draw, by rollout.
 */
export function lognormalLatency(seed: number) {
  const drawn = new Map<string, number[]>();
  const latency = (request: ChatRequest, marker: CallMarker | undefined): number => {
    const rollout = rolloutOf(request);
    const key = `${seed}|${rollout}|${marker?.caller}|${marker?.stage}|${marker?.round}|${marker?.step}|${request.messages.length}`;
    const bytes = createHash('sha256').update(key).digest();
    const u1 = (bytes.readUInt32BE(0) + 1) / 2 ** 32;
    const u2 = bytes.readUInt32BE(4) / 2 ** 32;
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    const ms = Math.min(LATENCY.capMs, Math.round(LATENCY.medianMs * Math.exp(SIGMA * z)));
    drawn.set(rollout, [...(drawn.get(rollout) ?? []), ms]);
    return ms;
  };
  return { latency, drawn };
}
