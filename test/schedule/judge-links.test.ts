// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { git } from '../../src/git';
import { companionPaths } from '../../src/mining/output/mine-to-files';
import { MiningSummarySchema } from '../../src/mining/summary';
import { readReposFile, repoSlug } from '../../src/schedule/repos-file';
import { mineForSchedule, scheduleFolder } from '../../src/schedule/scheduled-mine';
import { FakeOpenAI } from '../support/fake-openai';
import { HistoryBuilder } from '../mining/history-builder';

const lines = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag}_${i + 1} = ${i + 1}`).join('\n') + '\n';
const rewrite = (text: string, from: number, count: number, tag: string) => {
  const all = text.split('\n');
  all.splice(from, count, ...Array.from({ length: count }, (_, i) => `${tag}_${from + i + 1} = 0`));
  return all.join('\n');
};

test('a repos file line with judge-links=yes has each scheduled mine ask the model about its candidate links; other lines do not', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-schedule-judge-'));
  const parser = lines('parser', 12);
  const history = () =>
    new HistoryBuilder({ 'pkg/__init__.py': '' })
      .pr({
        number: 1,
        title: 'Add the parser',
        body: 'A parser for the config format.',
        landing: 'squash',
        commits: [{ message: 'Add the parser', files: { 'pkg/parser.py': parser } }],
      })
      .pr({
        number: 2,
        title: 'Handle empty input in the parser',
        landing: 'squash',
        commits: [
          { message: 'Handle empty input in the parser', files: { 'pkg/parser.py': rewrite(parser, 2, 4, 'parser') } },
        ],
      });
  // A scheduled mine fetches each clone from its remote first: the clones have one.
  for (const name of ['judged', 'plain']) {
    await history().write(join(root, 'upstream', name));
    await git(root, ['clone', '-q', join(root, 'upstream', name), name]);
  }
  const reposFile = join(root, 'repos.txt');
  await writeFile(reposFile, 'judged name=acme/judged judge-links=yes\nplain name=acme/plain judge-links=no\n');
  const repos = await readReposFile(reposFile);
  expect(repos.map((r) => r.judgeLinks)).toEqual([true, undefined]);
  await writeFile(reposFile, 'judged judge-links=maybe\n');
  await expect(readReposFile(reposFile)).rejects.toThrow(/repos\.txt:1: judge-links= wants yes or no, got "maybe"/);

  const model = new FakeOpenAI((_req, marker) => {
    if (marker?.caller !== 'link-judge') throw new Error(`unexpected caller ${marker?.caller}`);
    return { content: JSON.stringify({ verdict: 'none', reason: 'Scripted: no dependency on #1.' }) };
  });
  const url = await model.start();
  try {
    const config = loadConfig({
      env: {
        CHAINSMITH_HOME: join(root, 'data'),
        CHAINSMITH_MODEL_BASE_URL: url,
        CHAINSMITH_MODEL: 'judge-model',
        CHAINSMITH_MODEL_RETRIES: '1',
      },
      cwd: root,
    });
    const run = {
      scheduleId: 'nightly',
      repos,
      mine: {},
      start: { policy: 'gold-replay' as const, scaffold: 'tools' as const, concurrency: 1 },
    };
    const summaryOf = async (index: number) => {
      const folder = scheduleFolder(config, run.scheduleId, repoSlug(repos[index], index));
      return MiningSummarySchema.parse(
        JSON.parse(await readFile(companionPaths(join(folder, 'chains.jsonl')).summary, 'utf8')),
      );
    };
    const judged = await mineForSchedule(config, run, 0, 'run-1');
    const summary = await summaryOf(0);
    expect(summary.linkJudge).toMatchObject({ model: 'judge-model', candidates: 1, judged: 1, dropped: 1 });
    // The one candidate was the only link: dropped, no chain is left to start.
    expect(judged.newChains).toEqual([]);
    expect(model.requestsBy('link-judge')).toHaveLength(1);

    // The same history unjudged keeps the link: its chain is started.
    const plain = await mineForSchedule(config, run, 1, 'run-1');
    expect(plain.newChains).toHaveLength(1);
    expect((await summaryOf(1)).linkJudge).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  } finally {
    await model.stop();
  }
});
