import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { FakeOpenAI } from '../support/fake-openai';
import { ciReadingModel, layoutChain } from '../support/setup-layouts';

const run = promisify(execFile);
const bin = join(resolve(__dirname, '../..'), 'bin/chainsmith.js');

/** Runs the built CLI (npm test builds it) with its own data directory and the given environment. */
async function cli(args: string[], home: string, env: Record<string, string> = {}) {
  try {
    const r = await run('node', [bin, ...args], { env: { ...process.env, CHAINSMITH_HOME: home, ...env }, cwd: home });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('validate with a model: the setup agent rescues a repository no detector knows, the funnel counts it, and a rerun without a model uses the saved recipe', async () => {
  const home = mkdtempSync(join(tmpdir(), 'chainsmith-setup-cli-'));
  const chain = await layoutChain('script', `cli-${process.pid}`);
  const chains = join(home, 'chains.jsonl');
  writeFileSync(chains, `${JSON.stringify(chain)}\n`);
  const model = new FakeOpenAI(ciReadingModel());
  const baseUrl = await model.start();
  try {
    const r = await cli(['validate', '--chains', chains], home, {
      CHAINSMITH_MODEL_BASE_URL: baseUrl,
      CHAINSMITH_MODEL: 'scripted',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\[1\/2\] gen\/script-cli-\d+ PR #1: verified \(1 FAIL_TO_PASS/m);
    expect(r.stdout).toMatch(/^ {2}stages the setup agent rescued \(detection's recipe failed\): 2$/m);
    expect(r.stdout).toMatch(
      /^setup agent \(scripted\) on gen\/script-cli-\d+: 2 stage\(s\) detection could not set up; 1 rescued now, 1 by a saved recipe; \d+ tokens in 4 requests \(cost unknown: no price for the model\)$/m,
    );
    const file = join(home, 'recipes', `gen+script-cli-${process.pid}.json`);
    expect(JSON.parse(readFileSync(file, 'utf8')).eras[0].recipe.test).toBe('sh scripts/run-checks');
  } finally {
    await model.stop();
  }
  expect(model.requests).toHaveLength(4);

  // No model now: the saved recipe serves both stages, and nothing needs a note.
  const again = await cli(['validate', '--chains', chains], home);
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/^\[2\/2\] gen\/script-cli-\d+ PR #2: verified/m);
  expect(again.stdout).not.toMatch(/^note:/m);
  expect(existsSync(join(home, 'recipes'))).toBe(true);
});
