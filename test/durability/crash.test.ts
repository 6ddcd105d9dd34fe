import Docker from 'dockerode';
import { ArtifactStore } from '../../src/artifacts/store';
import { CONTAINER_LABEL } from '../../src/container/docker-container';
import { roundContainers } from '../../src/stage/round-container';
import { OWNER_LABEL } from '../../src/container/orphans';
import { TrajectorySchema, type ScaffoldKind } from '../../src/schemas';
import { crashRun } from '../support/crash-run';
import { expectedNotes, notesIn } from '../support/scripted-model';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';

const NOTES = 6;
/**
 * A smoke test per scaffold: three kills of the tools scaffold's worker, one of the bash scaffold's
 * (its steps resume through the same checkpoints; what differs is how its conversation is rebuilt).
 * The durability bench kills 20 times mid-step (steps_redone_per_kill_mid_step) and 30 or more times
 * anywhere in a chain, counting every unit of work each kill redid (redone_units_per_kill_max).
 */
const KILLS: Record<ScaffoldKind, number> = { tools: 3, bash: 1 };

// The two scaffolds side by side: most of each run is waiting (a killed worker's heartbeat timeout, a restart).
test.concurrent.each<ScaffoldKind>(['tools', 'bash'])(
  '%s scaffold: a worker SIGKILLed mid-rollout completes the chain, each kill redoing at most one step',
  async (scaffold) => {
    const chain = await demoChain(`crash-${scaffold}`);
    const env = {
      OPENAI_API_KEY: `sk-crash-${scaffold}-test`,
      CHAINSMITH_MODEL: 'scripted',
      CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3',
    };
    const config = testConfig(env);
    const run = await crashRun({ chain, config, env, kills: KILLS[scaffold], notesPerStage: NOTES, scaffold });
    console.log(
      `${scaffold} crash test: ${run.kills} SIGKILLs, ${run.calls} agent model calls, steps re-executed after each kill: ${run.redonePerKill.join(', ')}`,
    );

    expect(run.kills).toBe(KILLS[scaffold]);
    expect(run.result.status).toBe('accepted');
    expect(run.result.results.map((s) => [s.prNumber, s.status, s.rounds.length])).toEqual([
      [2, 'accepted', 1],
      [4, 'accepted', 1],
      [6, 'accepted', 1],
    ]);
    // Each kill on its own, so one that redid two steps is not hidden by one that redid none.
    expect(run.redonePerKill).toHaveLength(run.kills);
    expect(run.redonePerKill.filter((n) => n > 1)).toEqual([]);
    expect(run.redoneBeforeKills).toBe(0);

    // The tree itself shows no step lost or run twice: every note line once, in order.
    const store = new ArtifactStore(`${config.dataDir}/artifacts`);
    const last = run.result.results[2].finalRound!;
    expect(notesIn(await store.getText(last.cumulativePatchRef))).toEqual(expectedNotes(3, NOTES));
    if (scaffold === 'bash') {
      // And the conversation: every step once (a bash step is a reply and its output turn).
      expect(run.workflowId).toMatch(/-model-bash$/);
      const t = await store.getJson(last.trajectoryRef, TrajectorySchema);
      expect(t.scaffold).toBe('bash');
      const notes = t.messages.filter(
        (m) => m.role === 'assistant' && /echo "stage \d step \d+"/.test(m.content ?? ''),
      );
      expect(notes).toHaveLength(3 * NOTES);
      expect([t.steps, t.toolCalls]).toEqual([3 * (NOTES + 2), 3 * (NOTES + 2)]);
    }

    expect(await roundContainers(new Docker(), { workflowId: run.workflowId })).toHaveLength(0);
    // Nor anything its worker processes owned: a killed one's warm and taken pooled sandboxes went in the
    // next one's start sweep, the last one's warm ones when it shut down.
    const owned = (
      await new Docker().listContainers({ all: true, filters: { label: [CONTAINER_LABEL, OWNER_LABEL] } })
    ).filter((c) => run.pids.includes(Number(c.Labels[OWNER_LABEL].split(':')[1])));
    expect(owned).toHaveLength(0);
  },
  600_000,
);
