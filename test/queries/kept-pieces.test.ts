// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryActivities } from '../../src/activities/queries';
import type { ActivityContext } from '../../src/activities/context';
import { ArtifactStore } from '../../src/artifacts/store';
import { ModelClient } from '../../src/model/client';
import { FakeOpenAI, type Script } from '../support/fake-openai';
import { sampleChain } from './sample-chain';

const STAGE = {
  intent: 'Callers can be handed data that is far out of date.',
  locus: 'The caching layer.',
  logic: 'Bound the age of an entry.',
  directive: 'Respect a maximum age.',
};
const OVERVIEW = { overview: 'Make the cache trustworthy.' };

/**
 * A worker killed while the query writer writes the chain's overview: the stages' queries were written
 * already. Its retry (the same workflow run, the same activity) must ask for the overview only.
 */
test('the query activity keeps each written piece: a retry after the overview failed asks for the overview only', async () => {
  let overviewUp = false;
  const script: Script = (_req, marker) => {
    if (marker?.stage !== undefined) return { content: JSON.stringify(STAGE) };
    if (!overviewUp) throw new Error('the worker died here');
    return { content: JSON.stringify(OVERVIEW) };
  };
  const fake = new FakeOpenAI(script);
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-kept-')), 'artifacts'));
    const ctx = { store, judgeModel: () => ({ client, model: 'writer' }) } as unknown as ActivityContext;
    const { synthesizeQueries } = queryActivities(ctx);
    const chain = sampleChain();
    const input = { chainRef: await store.putJson(chain), policy: 'model' as const };
    const info = { workflowExecution: { workflowId: 'chain-kept', runId: 'run-1' } };

    await expect(new MockActivityEnvironment(info).run(synthesizeQueries, input)).rejects.toThrow();
    const writerCalls = () => fake.requestsBy('query-writer').length;
    const before = writerCalls();
    expect(before).toBe(chain.prs.length + 1);

    overviewUp = true;
    const queries = (await new MockActivityEnvironment({ ...info, attempt: 2 }).run(
      synthesizeQueries,
      input,
    )) as Awaited<ReturnType<typeof synthesizeQueries>>;
    // The overview alone was asked again.
    expect(writerCalls()).toBe(before + 1);
    const written = await store.getText(queries.queriesRef);
    expect(JSON.parse(written)).toMatchObject({
      overview: OVERVIEW.overview,
      stages: chain.prs.map(() => ({ parts: STAGE })),
    });

    // Another run of the same chain writes its own.
    await new MockActivityEnvironment({ workflowExecution: { workflowId: 'chain-kept', runId: 'run-2' } }).run(
      synthesizeQueries,
      input,
    );
    expect(writerCalls()).toBe(before + 1 + chain.prs.length + 1);
  } finally {
    await fake.stop();
  }
});
