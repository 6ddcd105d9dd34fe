// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { ModelClient } from '../../src/model/client';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { modelVerdict } from '../../src/judge/model-verdict';
import { MalformedReplyError, ModelRefusedError, ModelTimeoutError } from '../../src/model/errors';
import { FakeOpenAI, type Reply } from '../support/fake-openai';

const INPUT = {
  task: 'Make median average the middle pair.',
  goldPatch: '+    return (a + b) / 2',
  agentPatch: '+    return mean(pair)',
};
const VALID = {
  score: 0.9,
  aspects: { behaviour: 'same', completeness: 'complete', scope: 'focused', tests: 'pass' },
  feedback: 'Good.',
};

async function judgeWith(replies: string[]) {
  let asked = 0;
  const fake = new FakeOpenAI((): Reply => ({ content: replies[Math.min(asked++, replies.length - 1)] }));
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    return { verdict: await modelVerdict(client, 'judge', INPUT).catch((err: Error) => err), fake };
  } finally {
    await fake.stop();
  }
}

test('a malformed verdict is pointed out and asked for again in the same conversation', async () => {
  const { verdict, fake } = await judgeWith([
    'The patch looks fine to me!',
    JSON.stringify({ score: 7, feedback: 'x' }),
    JSON.stringify(VALID),
  ]);
  expect(verdict).toEqual(VALID);
  expect(fake.requests).toHaveLength(3);
  const third = fake.requests[2].body.messages;
  expect(third.slice(2).map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
  expect(third[3].content).toMatch(/could not be used: it is not valid JSON/);
  expect(third[5].content).toMatch(/could not be used: it does not match the schema \(score: Too big/);
  expect(fake.requests[0].body.response_format).toMatchObject({
    json_schema: { name: 'verdict', strict: true, schema: { required: ['score', 'feedback', 'aspects'] } },
  });
});

test('three malformed verdicts fail the stage with the reason', async () => {
  const { verdict } = await judgeWith(['nope']);
  expect(verdict).toBeInstanceOf(MalformedReplyError);
  expect((verdict as Error).message).toMatch(
    /^the judge returned no valid verdict in 3 attempts \(attempt 1: it is not valid JSON \("nope"\); attempt 2: .*attempt 3: /,
  );
});

test('a judge endpoint that does not answer is a clear, retryable error', async () => {
  const hung: Server = createServer(() => undefined); // accepts the request and never answers
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`;
  const client = new ModelClient({ baseUrl: url, timeoutMs: 300, retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const err = await modelVerdict(client, 'judge', INPUT).catch((e: Error) => e);
    expect(err).toBeInstanceOf(ModelTimeoutError);
    expect((err as ModelTimeoutError).permanent).toBe(false);
    expect((err as Error).message).toBe(`the judge at ${url} did not answer within 300 ms`);
  } finally {
    hung.closeAllConnections();
    await new Promise((r) => hung.close(r));
  }
});

test('an endpoint that refuses the request (HTTP 401) is not retried', async () => {
  const server = createServer((_req, res) =>
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new ModelClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    retry: { attempts: 1, baseDelayMs: 0 },
  });
  try {
    const err = await modelVerdict(client, 'judge', INPUT).catch((e: Error) => e);
    expect(err).toBeInstanceOf(ModelRefusedError);
    expect(err).toMatchObject({ status: 401, permanent: true });
    expect((err as Error).message).toMatch(/answered HTTP 401: 401 bad key$/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
