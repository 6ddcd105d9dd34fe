// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { ApplicationFailure } from '@temporalio/common';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { toActivityFailure } from '../../src/activity-failure';
import { RateLimitError } from '../../src/mining/errors';
import { ModelClient } from '../../src/model/client';
import {
  ModelRateLimitedError,
  ModelRefusedError,
  ModelTimeoutError,
  ModelUnavailableError,
} from '../../src/model/errors';
import { REDACTED, Redactor } from '../../src/redact';

const KEY = 'sk-live-0123456789abcdefghij';
const OK = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
};

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

/** An endpoint on 127.0.0.1 answering each request with the next scripted answer (the last one repeats). */
async function endpoint(answers: Answer[]): Promise<{ url: string; seen: IncomingMessage[]; server: Server }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    req.on('end', () => {
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
      if (answer === 'hang') return;
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.body ?? OK));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, server };
}

async function call(answers: Answer[], opts: { attempts?: number; timeoutMs?: number; redactor?: Redactor } = {}) {
  const { url, seen, server } = await endpoint(answers);
  const client = new ModelClient({
    baseUrl: url,
    apiKey: KEY,
    timeoutMs: opts.timeoutMs ?? 5_000,
    retry: { attempts: opts.attempts ?? 1, baseDelayMs: 10 },
  });
  try {
    const result = await client
      .complete(
        { model: 'm', messages: [{ role: 'user', content: 'x' }] },
        { marker: { caller: 'judge', stage: 1, round: 2 }, redactor: opts.redactor },
      )
      .catch((err: Error) => err);
    return { result, seen, url };
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

test('each way an endpoint fails is its own error, with the status or wait it said, and the key nowhere', async () => {
  const refused = await call([{ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }]);
  expect(refused.result).toBeInstanceOf(ModelRefusedError);
  expect(refused.result).toMatchObject({
    status: 401,
    permanent: true,
    message: `the judge at ${refused.url} answered HTTP 401: 401 Incorrect API key provided: ${REDACTED}`,
  });

  const other = 'db-password-0123456789';
  const busy = await call([{ status: 503, body: { error: { message: `busy (${KEY}, ${other})` } } }], {
    redactor: new Redactor([other]),
  });
  expect(busy.result).toBeInstanceOf(ModelUnavailableError);
  expect(busy.result).toMatchObject({
    status: 503,
    permanent: false,
    message: `the judge at ${busy.url} answered HTTP 503: 503 busy (${REDACTED}, ${REDACTED})`,
  });

  const limited = await call([
    { status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'slow down' } } },
  ]);
  expect(limited.result).toBeInstanceOf(ModelRateLimitedError);
  expect(limited.result).toMatchObject({ retryAfterMs: 7_000, permanent: false });

  const hung = await call(['hang'], { timeoutMs: 200 });
  expect(hung.result).toBeInstanceOf(ModelTimeoutError);
  expect((hung.result as Error).message).toBe(`the judge at ${hung.url} did not answer within 200 ms`);

  const closed = await endpoint([]);
  await new Promise((r) => closed.server.close(r));
  const client = new ModelClient({ baseUrl: closed.url, apiKey: KEY, retry: { attempts: 1, baseDelayMs: 0 } });
  const unreachable = await client
    .completeJson('m', [], { name: 'x', schema: z.object({}) }, { caller: 'query-writer' })
    .catch((e: Error) => e);
  expect(unreachable).toBeInstanceOf(ModelUnavailableError);
  expect((unreachable as Error).message).toBe(`the query writer at ${closed.url} is unreachable (ECONNREFUSED)`);
  // The network error stays as the cause: it says what happened and holds no secret.
  expect(((unreachable as Error).cause as Error).message).toBeTruthy();

  for (const err of [refused.result, busy.result, limited.result, hung.result, unreachable]) {
    const failure = toActivityFailure(err) as ApplicationFailure;
    expect(
      JSON.stringify({ ...failure, message: failure.message, cause: String(failure.cause), stack: failure.stack }),
    ).not.toContain(KEY);
  }
});

test('the one retry policy tries a failing call again, waiting what Retry-After asks, and never retries a refusal', async () => {
  const started = Date.now();
  const flaky = await call([{ status: 429, headers: { 'retry-after': '1' } }, { status: 503 }, { status: 200 }], {
    attempts: 3,
  });
  expect(flaky.result).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
  expect(flaky.seen).toHaveLength(3);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);

  const exhausted = await call([{ status: 503 }], { attempts: 2 });
  expect(exhausted.result).toBeInstanceOf(ModelUnavailableError);
  expect(exhausted.seen).toHaveLength(2);

  const refused = await call([{ status: 400, body: { error: { message: 'context too long' } } }], { attempts: 3 });
  expect(refused.result).toBeInstanceOf(ModelRefusedError);
  expect(refused.seen).toHaveLength(1);
});

test('every call says who is calling and where, in headers that carry no secret', async () => {
  const { seen } = await call([{ status: 200 }]);
  const marker = Object.fromEntries(
    Object.entries(seen[0].headers).filter(([name]) => name.startsWith('x-chainsmith-')),
  );
  expect(marker).toEqual({ 'x-chainsmith-caller': 'judge', 'x-chainsmith-stage': '1', 'x-chainsmith-round': '2' });
  expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
});

test('Temporal sees refusals as non-retryable and the rest as retryable, each typed by its class, a rate limit with its delay', () => {
  const refused = toActivityFailure(new ModelRefusedError('no', 401)) as ApplicationFailure;
  expect(refused).toBeInstanceOf(ApplicationFailure);
  expect(refused).toMatchObject({ type: 'ModelRefusedError', nonRetryable: true, message: 'no' });
  const limited = toActivityFailure(new ModelRateLimitedError('slow', 30_000)) as ApplicationFailure;
  expect(limited).toMatchObject({ type: 'ModelRateLimitedError', nonRetryable: false, nextRetryDelay: 30_000 });
  const down = toActivityFailure(new ModelUnavailableError('down', 502)) as ApplicationFailure;
  expect(down).toMatchObject({ type: 'ModelUnavailableError', nonRetryable: false });
  expect(down.nextRetryDelay).toBeUndefined();
  // GitHub's rate limit says when it resets: the retry waits until then, not a fixed backoff.
  const github = toActivityFailure(
    new RateLimitError('rate limited', new Date(Date.now() + 600_000)),
  ) as ApplicationFailure;
  expect(github).toMatchObject({ type: 'RateLimitError', nonRetryable: false });
  expect(github.nextRetryDelay).toBeGreaterThan(590_000);
  expect(github.nextRetryDelay).toBeLessThanOrEqual(600_000);
  const bug = new TypeError('a bug');
  expect(toActivityFailure(bug)).toBe(bug);
});

test("a judge or query writer call in flight stops when its activity is cancelled, without waiting for the model's time limit", async () => {
  const { url, seen, server } = await endpoint(['hang']);
  const client = new ModelClient({
    baseUrl: url,
    apiKey: KEY,
    timeoutMs: 60_000,
    retry: { attempts: 3, baseDelayMs: 10 },
  });
  const cancelled = new AbortController();
  try {
    const call = client
      .completeJson(
        'm',
        [{ role: 'user', content: 'x' }],
        { name: 'verdict', schema: z.object({}) },
        { caller: 'judge', stage: 0 },
        cancelled.signal,
      )
      .catch((e: Error) => e);
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    cancelled.abort();
    const result = await call;
    expect(result).toBeInstanceOf(Error);
    expect(String(result)).toMatch(/abort/i);
    // Stopped, not retried: the one request is all the endpoint saw.
    expect(seen).toHaveLength(1);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
