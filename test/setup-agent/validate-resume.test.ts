import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { stageCheckpoint } from '../../src/setup-agent/progress';
import { FakeOpenAI } from '../support/fake-openai';
import { ciReadingModel, layoutChain } from '../support/setup-layouts';

const bin = join(resolve(__dirname, '../..'), 'bin/chainsmith.js');

/** The built CLI (npm test builds it) in a process of its own; `started` is told its child. */
function cli(args: string[], env: Record<string, string>, started: (child: ChildProcess) => void = () => {}) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((done) => {
    const child = spawn('node', [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.resume();
    child.on('exit', (code, signal) => done({ code, signal, stdout }));
    started(child);
  });
}

test('validate killed while the setup agent works: run again, it resumes the stage at the recipe under way, asking nothing again', async () => {
  const home = mkdtempSync(join(tmpdir(), 'chainsmith-setup-kill-'));
  const full = await layoutChain('script', `kill-${process.pid}`);
  const chain = { ...full, id: `${full.id}/first`, prs: [full.prs[0]], edges: [] };
  const chains = join(home, 'chains.jsonl');
  writeFileSync(chains, `${JSON.stringify(chain)}\n`);
  let child: ChildProcess | undefined;
  let release: (() => void) | undefined;
  // The second recipe's first call kills the process that asked for it, before any answer.
  const model = new FakeOpenAI(ciReadingModel(), {
    hold: (_req, marker) => {
      if (marker?.round !== 1 || marker.step !== 0 || release) return undefined;
      child?.kill('SIGKILL');
      return new Promise<void>((resolve) => (release = resolve));
    },
  });
  const env = { CHAINSMITH_HOME: home, CHAINSMITH_MODEL_BASE_URL: await model.start(), CHAINSMITH_MODEL: 'scripted' };
  try {
    const killed = await cli(['validate', '--chains', chains], env, (c) => (child = c));
    expect(killed.signal).toBe('SIGKILL');
    const before = model.requests.map((r) => [r.marker?.round, r.marker?.step]);
    expect(before).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    release!();

    const again = await cli(['validate', '--chains', chains], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^setup agent: gen\/script-kill-\d+ PR #1: resuming at recipe 2 after 2 model call\(s\)/m,
    );
    expect(again.stdout).toMatch(/^\[1\/1\] gen\/script-kill-\d+ PR #1: verified \(1 FAIL_TO_PASS/m);
    // Only the call the kill cut short was asked again, as it was, then the second recipe's proposal.
    const after = model.requests.slice(before.length);
    expect(after.map((r) => [r.marker?.round, r.marker?.step])).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(after[0].body.messages).toEqual(model.requests[2].body.messages);
    const file = join(home, 'recipes', `gen+script-kill-${process.pid}.json`);
    expect(JSON.parse(readFileSync(file, 'utf8')).eras[0].origin).toBe('setup agent, scripted, 2 attempt(s)');
    // The agent is done with the stage: its progress is gone, and a later run would start it afresh.
    const store = new ArtifactStore(join(home, 'artifacts'));
    expect(await stageCheckpoint(store, chain.id, 0).load()).toBeUndefined();
  } finally {
    release?.();
    await model.stop();
  }
}, 300_000);
