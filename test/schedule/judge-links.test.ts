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
import { parserRewriteHistory } from '../mining/rewrite-history';

test('a repos file line with judge-links=yes has each scheduled mine ask the model about its candidate links; other lines do not', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-schedule-judge-'));
  // A scheduled mine fetches each clone from its remote first: the clones have one.
  for (const name of ['judged', 'plain']) {
    await parserRewriteHistory().write(join(root, 'upstream', name));
    await git(root, ['clone', '-q', join(root, 'upstream', name), name]);
  }
  const reposFile = join(root, 'repos.txt');
  await writeFile(reposFile, 'judged name=acme/judged judge-links=yes\nplain name=acme/plain judge-links=no\n');
  const repos = await readReposFile(reposFile);
  expect(repos.map((r) => r.judgeLinks)).toEqual([true, undefined]);
  await writeFile(reposFile, 'judged judge-links=maybe\n');
  await expect(readReposFile(reposFile)).rejects.toThrow(/repos\.txt:1: judge-links= wants yes or no, got "maybe"/);

  let verdict = 'none';
  const model = new FakeOpenAI((_req, marker) => {
    if (marker?.caller !== 'link-judge') throw new Error(`unexpected caller ${marker?.caller}`);
    return { content: JSON.stringify({ verdict, reason: `Scripted: ${verdict}.` }) };
  });
  const url = await model.start();
  try {
    const configWith = (modelName: string) =>
      loadConfig({
        env: {
          CHAINSMITH_HOME: join(root, 'data'),
          CHAINSMITH_MODEL_BASE_URL: url,
          CHAINSMITH_MODEL: modelName,
          CHAINSMITH_MODEL_RETRIES: '1',
        },
        cwd: root,
      });
    const config = configWith('judge-model');
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

    // No one can add --fresh to a schedule: another judge model mines a repository again from scratch, and
    // only the chains its earlier files lacked are handed on.
    verdict = 'strong';
    const other = configWith('judge-model-2');
    const rejudged = await mineForSchedule(other, run, 0, 'run-2');
    expect((await summaryOf(0)).linkJudge).toMatchObject({ model: 'judge-model-2', judged: 1, dropped: 0 });
    expect(rejudged.newChains).toHaveLength(1);
    // The plain line turned judged: its one chain was handed on at run-1, so nothing is new.
    const nowJudged = { ...run, repos: [repos[0], { ...repos[1], judgeLinks: true }] };
    const plainAgain = await mineForSchedule(other, nowJudged, 1, 'run-2');
    expect((await summaryOf(1)).linkJudge).toMatchObject({ model: 'judge-model-2', judged: 1, dropped: 0 });
    expect(plainAgain.newChains).toEqual([]);
  } finally {
    await model.stop();
  }
});
