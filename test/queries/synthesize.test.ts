// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { ModelClient } from '../../src/model/client';
import { MalformedReplyError } from '../../src/model/errors';
import { chainQueries } from '../../src/queries/chain-queries';
import { summarizeLeaks } from '../../src/queries/leak-rate';
import { synthesizeQueries } from '../../src/queries/synthesize';
import type { CallMarker } from '../../src/model/markers';
import { FakeOpenAI, type Script } from '../support/fake-openai';
import { sampleChain } from './sample-chain';

const LEAKY = {
  intent: 'Stale entries are served forever.',
  locus: 'pkg/cache.py, in the lookup path.',
  logic: 'When an entry is expired, call refreshFromDisk instead of returning it.',
  directive: 'Make lookups honour a time to live.',
};
const CLEAN = {
  intent: 'Cached values never expire, so callers can be handed data that is far out of date.',
  locus: 'The caching layer, where entries are looked up.',
  logic: 'Let callers bound the age of an entry and reload entries older than that bound.',
  directive: 'Make cache lookups respect an optional maximum age.',
};
const MISSES = {
  intent: 'Operators cannot tell how often the cache misses.',
  locus: 'The cache statistics.',
  logic: 'Count each miss in a metric that monitoring can scrape.',
  directive: 'Expose the number of cache misses as a metric.',
};
const OVERVIEW = {
  overview: 'Make the cache trustworthy and observable: bound the age of entries, then report how often it misses.',
};

/** The stage (1-based) a query-writer call is for, by its marker; undefined for the chain overview. */
function stageOf(marker?: CallMarker): number | undefined {
  return marker?.stage === undefined ? undefined : marker.stage + 1;
}

async function withFake<T>(script: Script, fn: (client: ModelClient, fake: FakeOpenAI) => Promise<T>): Promise<T> {
  const fake = new FakeOpenAI(script);
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    return await fn(client, fake);
  } finally {
    await fake.stop();
  }
}

test('a leaking query is caught, sent back with the findings and regenerated; a malformed reply is asked for again', async () => {
  const script: Script = (req, marker) => {
    const answered = req.messages.filter((m) => m.role === 'assistant').length;
    const stage = stageOf(marker);
    if (stage === 1) return { content: JSON.stringify(answered === 0 ? LEAKY : CLEAN) };
    if (stage === 2)
      return { content: answered === 0 ? 'Sure! Here is the query: count misses.' : JSON.stringify(MISSES) };
    return { content: JSON.stringify(OVERVIEW) };
  };
  await withFake(script, async (client, fake) => {
    const queries = await synthesizeQueries(client, 'writer', sampleChain());

    const [first, second] = queries.stages;
    expect(first.leak).toMatchObject({ attempts: 2, score: 0, passed: true, findings: [] });
    expect(first.leak!.firstScore).toBeGreaterThan(first.leak!.limit);
    expect(first.parts).toEqual(CLEAN);
    expect(first.text).toBe(
      'Make cache lookups respect an optional maximum age.\n\n' +
        'Why: Cached values never expire, so callers can be handed data that is far out of date.\n' +
        'Where: The caching layer, where entries are looked up.\n' +
        'Key idea: Let callers bound the age of an entry and reload entries older than that bound.',
    );

    // The regeneration request carries the leaking answer and what it gave away.
    const retry = fake.requests.find((r) => stageOf(r.marker) === 1 && r.body.messages.length > 2)!.body;
    const feedback = retry.messages.at(-1)!.content!;
    expect(retry.messages.at(-2)).toMatchObject({ role: 'assistant', content: JSON.stringify(LEAKY) });
    expect(feedback).toContain('"refreshFromDisk"');
    expect(feedback).toContain('"pkg/cache.py"');

    // The malformed reply was pointed out and counted as an attempt; what came next was clean.
    const malformedRetry = fake.requests.find((r) => stageOf(r.marker) === 2 && r.body.messages.length > 2)!.body;
    expect(malformedRetry.messages.at(-1)!.content).toMatch(/could not be used: it is not valid JSON/);
    expect(second.leak).toMatchObject({ attempts: 2, firstScore: 0, passed: true });

    expect(queries).toMatchObject({
      generator: 'model',
      model: 'writer',
      overview: OVERVIEW.overview,
      overviewLeak: { score: 0, attempts: 1 },
    });
    expect(summarizeLeaks([queries])).toMatchObject({ queries: 3, caught: 1, leaked: 0, rate: 0, regenerations: 2 });
  });
});

test('every request asks for the four parts through a strict JSON schema, with the prompts from their template files', async () => {
  await withFake(
    (_req, marker) => ({ content: JSON.stringify(stageOf(marker) ? CLEAN : OVERVIEW) }),
    async (client, fake) => {
      await synthesizeQueries(client, 'writer', sampleChain());
      const stageRequest = fake.requests.find((r) => stageOf(r.marker) === 1)!.body;
      expect(stageRequest.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: {
          name: 'stage_query',
          strict: true,
          schema: { required: ['intent', 'locus', 'logic', 'directive'] },
        },
      });
      expect(stageRequest.messages[0].content).toMatch(/^You write task statements/);
      expect(stageRequest.messages[1].content).toContain('Title: Expire cache entries after a TTL');
      expect(stageRequest.messages[1].content).toContain('- stage 2: Follow-up to #10: count cache misses');
      const overviewRequest = fake.requests.find((r) => !stageOf(r.marker))!.body;
      expect(overviewRequest.messages[1].content).toContain('Task statement:\nMake cache lookups respect');
    },
  );
});

test('when every attempt leaks, the least leaky query is kept and marked as leaking', async () => {
  const worse = { ...LEAKY, directive: 'Add a ttl parameter to lookup.' };
  await withFake(
    (req, marker) => {
      if (!stageOf(marker)) return { content: JSON.stringify(OVERVIEW) };
      if (stageOf(marker) === 2) return { content: JSON.stringify(MISSES) };
      const answered = req.messages.filter((m) => m.role === 'assistant').length;
      return { content: JSON.stringify(answered === 1 ? LEAKY : worse) };
    },
    async (client) => {
      const queries = await synthesizeQueries(client, 'writer', sampleChain(), { maxAttempts: 3 });
      const leak = queries.stages[0].leak!;
      expect(leak).toMatchObject({ attempts: 3, passed: false });
      expect(queries.stages[0].parts).toEqual(LEAKY);
      expect(leak.score).toBeLessThan(leak.firstScore);
      expect(summarizeLeaks([queries])).toMatchObject({ leaked: 1, rate: 1 / 3 });
    },
  );
});

test('no valid reply in any attempt fails the chain with the reason', async () => {
  await withFake(
    (_req, marker) => ({
      content: stageOf(marker) === 2 ? '{"intent": ""}' : JSON.stringify(stageOf(marker) ? CLEAN : OVERVIEW),
    }),
    async (client) => {
      const failure = synthesizeQueries(client, 'writer', sampleChain(), { maxAttempts: 2 });
      await expect(failure).rejects.toThrow(MalformedReplyError);
      await expect(failure).rejects.toThrow(
        /no valid reply for the query for stage 2 \(PR #12\) in 2 attempts \(attempt 1: it does not match the schema \(intent: .*locus: /,
      );
    },
  );
});

test('without a writer model a chain runs with template queries, each carrying its leak report', async () => {
  const queries = await chainQueries(sampleChain());
  expect(queries.generator).toBe('template');
  expect(queries.stages.map((s) => s.leak?.attempts)).toEqual([1, 1]);
  expect(queries.overviewLeak).toBeDefined();
});
