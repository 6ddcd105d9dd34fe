import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chain } from '../../src/schemas';
import { FakeOpenAI } from './fake-openai';
import { agentLatency, longRolloutScript } from './scripted-model';

export interface ModelProcessOptions {
  /** Notes the agent writes per stage before it applies the PR's patch and submits. */
  notesPerStage: number;
  /** How long every agent call takes; the query writer and the judge answer at once. */
  latencyMs: number;
}

export interface ModelProcess {
  url: string;
  /** CPU seconds the model's process has spent so far. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The scripted model (longRolloutScript) served from a process of its own, so that its HTTP work is
 * not charged to the workers under measurement and does not compete with them on their event loop.
 */
export async function startModelProcess(chain: Chain, opts: ModelProcessOptions): Promise<ModelProcess> {
  const file = join(mkdtempSync(join(tmpdir(), 'chainsmith-model-')), 'chain.json');
  writeFileSync(file, JSON.stringify(chain));
  const child = fork(__filename, [file, String(opts.notesPerStage), String(opts.latencyMs)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = () => reject(new Error('the model process exited'));
      child.once('exit', onExit);
      child.once('message', (answer) => {
        child.off('exit', onExit);
        resolve(answer as T);
      });
      if (message) child.send(message);
    });
  const url = await ask<string>('');
  return {
    url,
    cpuSeconds: () => ask<number>('cpu'),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function serve(): Promise<void> {
  const [file, notes, latency] = process.argv.slice(2);
  const chain = JSON.parse(readFileSync(file, 'utf8')) as Chain;
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: Number(notes) }), {
    latencyMs: agentLatency(Number(latency)),
    recordMessages: false,
  });
  const url = await fake.start();
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!((user + system) / 1e6);
  });
  process.send!(url);
}

if (require.main === module) {
  serve().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
