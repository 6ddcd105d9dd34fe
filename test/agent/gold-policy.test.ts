// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { BASH_SCAFFOLD, bashBlock, SUBMIT_MARKER } from '../../src/agent/bash-scaffold';
import { GoldReplayPolicy } from '../../src/agent/gold-policy';
import type { Scaffold } from '../../src/agent/scaffold';
import { TOOLS_SCAFFOLD } from '../../src/agent/tools-scaffold';
import type { PullRequest } from '../../src/schemas';

const README_PATCH = [
  'diff --git a/README.md b/README.md',
  '--- a/README.md',
  '+++ b/README.md',
  '@@ -1 +1,5 @@',
  ' # demo',
  '+',
  '+```sh',
  '+pip install demo',
  '+```',
  '',
].join('\n');

const pr = (patch: string): PullRequest =>
  ({
    number: 7,
    patch,
    files: [{ path: 'tests/test_demo.py', kind: 'test', status: 'modified' }],
  }) as unknown as PullRequest;

const replies = (policy: GoldReplayPolicy, scaffold: Scaffold) =>
  Promise.all([0, 1, 2].map(async (step) => (await policy.next([], { step, scaffold })).message));

test('gold replay under the tools scaffold: apply, test, submit as tool calls', async () => {
  const [apply, tests, submit] = await replies(
    new GoldReplayPolicy(pr('diff --git a/x b/x\n'), 'pytest -q tests/test_demo.py'),
    TOOLS_SCAFFOLD,
  );
  expect([apply, tests, submit].map((m) => m.tool_calls![0].function.name)).toEqual(['bash', 'bash', 'submit']);
  expect(JSON.parse(tests.tool_calls![0].function.arguments)).toEqual({ command: 'pytest -q tests/test_demo.py' });
});

test('gold replay under the bash scaffold: one block per reply, the marker to submit, and a patch holding a code fence sent base64-encoded', async () => {
  const [apply, tests, submit] = await replies(
    new GoldReplayPolicy(pr(README_PATCH), 'pytest -q tests/test_demo.py'),
    BASH_SCAFFOLD,
  );
  for (const m of [apply, tests, submit]) expect(m.tool_calls).toBeUndefined();
  const commands = [apply, tests, submit].map((m) => bashBlock(m.content!));
  expect(commands[1]).toEqual({ command: 'pytest -q tests/test_demo.py' });
  expect(commands[2]).toEqual({ command: `echo ${SUBMIT_MARKER} && echo 'Applied the changes of PR #7.'` });
  // The README's own ``` lines would have closed the block early; encoded, the block holds the whole patch.
  const { command } = commands[0] as { command: string };
  expect(command).toMatch(/^base64 -d <<'CHAINSMITH_GOLD_PATCH_END' \| git apply --3way/);
  const encoded = command.split('\n').slice(1, -1).join('');
  expect(Buffer.from(encoded, 'base64').toString()).toBe(README_PATCH);
});

test('a patch without a code fence goes through a plain heredoc, readable in the sample', async () => {
  const patch = 'diff --git a/x.py b/x.py\n+print(1)\n';
  const apply = (await new GoldReplayPolicy(pr(patch), 'pytest -q').next([], { step: 0, scaffold: BASH_SCAFFOLD }))
    .message;
  expect(bashBlock(apply.content!)).toEqual({
    command: `git apply --3way --whitespace=nowarn - <<'CHAINSMITH_GOLD_PATCH_END'\n${patch}CHAINSMITH_GOLD_PATCH_END`,
  });
});
