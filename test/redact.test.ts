// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { REDACTED, Redactor } from '../src/redact';

const KEY = 'sk-live-0123456789abcdefghij';

test('the worker’s secrets are known by the names of its variables; token-shaped text is caught by its shape', () => {
  const r = Redactor.forWorker(
    {
      OPENAI_API_KEY: KEY,
      GITHUB_TOKEN: 'plain-token-value-1234',
      DB_PASSWORD: 'hunter2hunter2',
      HOME: '/root',
      SHORT_TOKEN: 'abc',
    },
    ['configured-key-5678'],
  );
  expect(
    r.secretsIn(
      `curl -H "Authorization: ${KEY}" -u x:plain-token-value-1234 # hunter2hunter2 configured-key-5678 /root abc`,
    ),
  ).toBe(`curl -H "Authorization: ${REDACTED}" -u x:${REDACTED} # ${REDACTED} ${REDACTED} /root abc`);
  const shaped = [
    'ghp_' + 'a'.repeat(36),
    'github_pat_' + 'b'.repeat(40),
    'AKIAABCDEFGHIJKLMNOP',
    'xoxb-1234567890-abc',
    'Bearer abcdefghijklmnopqrstuvwxyz',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    'sk-proj-' + 'c'.repeat(24),
  ];
  for (const token of shaped) expect(r.text(`x ${token} y`)).toBe(`x ${REDACTED} y`);
  // Only known secrets are removed from a command before it runs; a fixture that merely looks like a token still works.
  expect(r.secretsIn(`echo ${shaped[0]}`)).toBe(`echo ${shaped[0]}`);
  const m = r.message({
    role: 'assistant',
    content: `key ${KEY}`,
    tool_calls: [
      { id: '1', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `echo ${KEY}` }) } },
    ],
  });
  expect(JSON.stringify(m)).not.toContain(KEY);
  expect(JSON.parse(m.tool_calls![0].function.arguments)).toEqual({ command: `echo ${REDACTED}` });
});
