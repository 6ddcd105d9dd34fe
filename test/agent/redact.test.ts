import OpenAI from 'openai';
import { modelFailure } from '../../src/agent/model-errors';
import { REDACTED, Redactor } from '../../src/agent/redact';

const KEY = 'sk-live-0123456789abcdefghij';

test('the worker’s secrets are known by the names of its variables; token-shaped text is caught by its shape', () => {
  const r = Redactor.forWorker({ OPENAI_API_KEY: KEY, GITHUB_TOKEN: 'plain-token-value-1234', DB_PASSWORD: 'hunter2hunter2', HOME: '/root', SHORT_TOKEN: 'abc' }, ['configured-key-5678']);
  expect(r.secretsIn(`curl -H "Authorization: ${KEY}" -u x:plain-token-value-1234 # hunter2hunter2 configured-key-5678 /root abc`)).toBe(
    `curl -H "Authorization: ${REDACTED}" -u x:${REDACTED} # ${REDACTED} ${REDACTED} /root abc`,
  );
  const shaped = ['ghp_' + 'a'.repeat(36), 'github_pat_' + 'b'.repeat(40), 'AKIAABCDEFGHIJKLMNOP', 'xoxb-1234567890-abc', 'Bearer abcdefghijklmnopqrstuvwxyz', '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', 'sk-proj-' + 'c'.repeat(24)];
  for (const token of shaped) expect(r.text(`x ${token} y`)).toBe(`x ${REDACTED} y`);
  // Only known secrets are removed from a command before it runs; a fixture that merely looks like a token still works.
  expect(r.secretsIn(`echo ${shaped[0]}`)).toBe(`echo ${shaped[0]}`);
  const m = r.message({ role: 'assistant', content: `key ${KEY}`, tool_calls: [{ id: '1', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `echo ${KEY}` }) } }] });
  expect(JSON.stringify(m)).not.toContain(KEY);
  expect(JSON.parse(m.tool_calls![0].function.arguments)).toEqual({ command: `echo ${REDACTED}` });
});

test('an endpoint error that quotes the key does not carry it into errors (and so into workflow history)', () => {
  const refused = new OpenAI.AuthenticationError(401, { message: `Incorrect API key provided: ${KEY}` }, undefined, new Headers());
  const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: KEY });
  const err = modelFailure(client, 'the judge', refused);
  expect(err.message).toBe(`the judge at http://127.0.0.1:9/v1 answered HTTP 401: 401 Incorrect API key provided: ${REDACTED}`);
  expect(JSON.stringify({ ...err, cause: (err as Error & { cause?: unknown }).cause })).not.toContain(KEY);
  // The worker's other secrets go too, for the agent's calls.
  const other = 'db-password-0123456789';
  const overloaded = modelFailure(client, 'the model', new OpenAI.InternalServerError(503, { message: `busy (${KEY}, ${other})` }, undefined, new Headers()), { redactor: new Redactor([other]) });
  expect(overloaded.message).toBe(`the model at http://127.0.0.1:9/v1 answered HTTP 503: 503 busy (${REDACTED}, ${REDACTED})`);
});
