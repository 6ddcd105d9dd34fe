import Docker from 'dockerode';
import { ArtifactStore } from '../../src/artifacts/store';
import { runLabel } from '../../src/rollout/round';
import { RUN_LABEL, SANDBOX_LABEL } from '../../src/sandbox/docker-sandbox';
import { crashRun } from '../../src/testing/crash-run';
import { expectedNotes, NOTES_FILE } from '../../src/testing/scripted-agent';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';

const NOTES = 10;
const KILLS = 20;

/** The lines a patch adds to NOTES.log. */
function notesIn(patch: string): string[] {
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${NOTES_FILE} `)) ?? '';
  return section.split('\n').filter((l) => l.startsWith('+stage')).map((l) => l.slice(1));
}

test(`a worker SIGKILLed ${KILLS} times mid-rollout: the chain completes, each kill redoes at most one step`, async () => {
  const chain = await demoChain('crash');
  const env = { OPENAI_API_KEY: 'sk-crash-test', CHAINSMITH_MODEL: 'scripted', CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3' };
  const config = testConfig(env);
  const run = await crashRun({ chain, config, env, kills: KILLS, notesPerStage: NOTES });
  console.log(`crash test: ${run.kills} SIGKILLs, ${run.calls} agent model calls, ${run.redone} steps re-executed (${(run.redone / run.kills).toFixed(2)} per kill)`);

  expect(run.kills).toBe(KILLS);
  expect(run.result.status).toBe('accepted');
  expect(run.result.results.map((s) => [s.prNumber, s.status, s.rounds.length])).toEqual([
    [2, 'accepted', 1],
    [4, 'accepted', 1],
    [6, 'accepted', 1],
  ]);
  expect(run.redone).toBeLessThanOrEqual(run.kills);

  // The tree itself shows no step lost or run twice: every note line once, in order.
  const store = new ArtifactStore(`${config.dataDir}/artifacts`);
  expect(notesIn(await store.getText(run.result.results[2].finalRound!.cumulativePatchRef))).toEqual(expectedNotes(3, NOTES));

  const left = (await new Docker().listContainers({ all: true, filters: { label: [SANDBOX_LABEL] } })).filter((c) =>
    (c.Labels[RUN_LABEL] ?? '').startsWith(runLabel(run.workflowId)),
  );
  expect(left).toHaveLength(0);
}, 600_000);
