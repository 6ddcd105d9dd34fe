// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readChains } from '../../../src/mining/output/chains-file';
import { companionPaths } from '../../../src/mining/output/mine-to-files';
import { MiningSummarySchema } from '../../../src/mining/summary';
import { EdgeSchema } from '../../../src/schemas';
import { FakeOpenAI, type Script } from '../../support/fake-openai';
import { HistoryBuilder } from '../history-builder';
import { numberedLines, parserRewriteHistory, rewriteLines } from '../rewrite-history';

const run = promisify(execFile);
const bin = resolve(__dirname, '../../../bin/chainsmith.js');

let root: string;
let repo: string;

/** Two code-history candidates, and nothing in any PR's words: #2 rewrites #1's lines, #4 rewrites #3's. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-link-judge-'));
  repo = join(root, 'parsers');
  const printer = numberedLines('printer', 12);
  await parserRewriteHistory()
    .pr({
      number: 3,
      title: 'Add the printer',
      landing: 'squash',
      commits: [{ message: 'Add the printer', files: { 'pkg/printer.py': printer } }],
    })
    .pr({
      number: 4,
      title: 'Rename printer constants',
      landing: 'squash',
      commits: [
        { message: 'Rename printer constants', files: { 'pkg/printer.py': rewriteLines(printer, 3, 4, 'printer') } },
      ],
    })
    .write(repo);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The model's verdicts, by the later PR's title in what it is shown: the rename is no link, the fix a strong one. */
const verdicts: Script = (request, marker) => {
  if (marker?.caller !== 'link-judge') throw new Error(`only the link judge should call, not ${marker?.caller}`);
  const shown = request.messages.map((m) => m.content ?? '').join('\n');
  if (shown.includes('#4: Rename printer constants'))
    return {
      content: JSON.stringify({ verdict: 'none', reason: 'A rename of constants #3 added; it needs nothing #3 did.' }),
    };
  return {
    content: JSON.stringify({ verdict: 'strong', reason: 'It fixes the empty-input case of the parse loop #1 wrote.' }),
  };
};

/** The built CLI (npm test builds it first) with a data directory of its own and no model unless given. */
async function mine(dataDir: string, out: string, args: string[], env: Record<string, string> = {}, clone = repo) {
  await mkdir(join(root, 'out'), { recursive: true });
  const base = { ...process.env };
  for (const name of [
    'OPENAI_BASE_URL',
    'CHAINSMITH_MODEL_BASE_URL',
    'CHAINSMITH_JUDGE_MODEL',
    'OPENAI_API_KEY',
    'CHAINSMITH_MODEL_API_KEY',
  ])
    delete base[name];
  const full = {
    ...base,
    CHAINSMITH_HOME: dataDir,
    CHAINSMITH_MODEL_RETRIES: '2',
    CHAINSMITH_MODEL_RETRY_BASE_MS: '10',
    ...env,
  };
  let result: { code: number; stdout: string; stderr: string };
  try {
    const { stdout, stderr } = await run(
      'node',
      [bin, 'mine', '--repo', clone, '--name', 'acme/parsers', '--out', out, ...args],
      { env: full, cwd: root },
    );
    result = { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    result = { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
  const paths = companionPaths(out);
  const edges = (await readFile(paths.edges, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => EdgeSchema.parse(JSON.parse(line)));
  const summary = await readFile(paths.summary, 'utf8').then(
    (text) => MiningSummarySchema.parse(JSON.parse(text)),
    () => undefined,
  );
  const chains = await readChains(out).catch(() => []);
  return { ...result, edges, summary, chains };
}

const pair = (edge: { from: number; to: number }) => `${edge.from}->${edge.to}`;

test('the judge drops the candidate it calls none and keeps, strong, the one it calls strong; a rerun takes both from the cache', async () => {
  const dataDir = join(root, 'data-judged');
  const plain = await mine(dataDir, join(root, 'out', 'plain.jsonl'), []);
  expect(plain.code).toBe(0);
  // Without the judge both code-history candidates join chains: what the judge removes is the miner's.
  expect(
    plain.edges
      .filter((edge) => edge.kind === 'code-history' && edge.confidence >= 0.6)
      .map(pair)
      .sort(),
  ).toEqual(['2->1', '4->3']);
  expect(plain.chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([
    [1, 2],
    [3, 4],
  ]);

  const model = new FakeOpenAI(verdicts);
  const url = await model.start();
  try {
    const env = { CHAINSMITH_MODEL_BASE_URL: url, CHAINSMITH_MODEL: 'judge-model' };
    const judged = await mine(dataDir, join(root, 'out', 'judged.jsonl'), ['--judge-links'], env);
    expect(judged.stderr).not.toMatch(/error|warning/);
    expect(judged.code).toBe(0);
    expect(judged.edges.map(pair)).toEqual(['2->1']);
    expect(judged.edges[0]).toMatchObject({
      strength: 'strong',
      judgement: {
        status: 'judged',
        verdict: 'strong',
        model: 'judge-model',
        reason: 'It fixes the empty-input case of the parse loop #1 wrote.',
      },
    });
    expect(judged.edges[0].evidence).toMatch(/judge-model judged it strong: It fixes the empty-input case/);
    expect(judged.chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([[1, 2]]);
    expect(judged.summary?.linkJudge).toMatchObject({
      model: 'judge-model',
      candidates: 2,
      judged: 2,
      fromCache: 0,
      dropped: 1,
      notJudged: 0,
      requests: 2,
    });
    expect(judged.summary?.linkJudge?.droppedLinks).toEqual([
      { from: 4, to: 3, kind: 'code-history', reason: 'A rename of constants #3 added; it needs nothing #3 did.' },
    ]);
    expect(judged.stdout).toMatch(
      /^link judge \(judge-model\): 2 candidate links, 2 judged \(0 from the cache\), 1 dropped, 0 not judged; \d+ tokens in 2 requests \(cost unknown: no price for the model\)$/m,
    );
    expect(judged.stdout).toMatch(/^ {2}dropped #3 → #4 \(code-history\): A rename of constants/m);
    // What the model was shown: both PRs' titles, texts and diffs, earlier first.
    const asked = model.requestsBy('link-judge').map((request) => request.messages.map((m) => m.content).join('\n'));
    const aboutFix = asked.find((text) => text.includes('#2: Handle empty input in the parser')) ?? '';
    expect(aboutFix.indexOf('#1: Add the parser')).toBeGreaterThan(-1);
    expect(aboutFix.indexOf('#1: Add the parser')).toBeLessThan(aboutFix.indexOf('#2: Handle empty input'));
    expect(aboutFix).toContain('A parser for the config format.');
    expect(aboutFix).toContain('+parser_3 = 0');
    expect(model.requestsBy('link-judge')[0].response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { strict: true, schema: { properties: { verdict: { enum: ['strong', 'weak', 'none'] } } } },
    });
    const tokens = judged.summary!.linkJudge!.promptTokens + judged.summary!.linkJudge!.completionTokens;
    expect(tokens).toBeGreaterThan(0);

    // The cursor keeps whose verdicts made the graph: growing it unjudged, or by another judge, would mix two graphs.
    const unjudged = await mine(dataDir, join(root, 'out', 'judged.jsonl'), [], env);
    expect(unjudged.code).toBe(2);
    expect(unjudged.stderr).toMatch(
      /^error: .*judged\.jsonl was mined with other options \(--judge-links judge-model then, unset now\)/m,
    );

    // Again from scratch into another file: every verdict comes from the cache, the model hears nothing.
    const before = model.requests.length;
    const rerun = await mine(dataDir, join(root, 'out', 'rerun.jsonl'), ['--judge-links'], env);
    expect(rerun.code).toBe(0);
    expect(model.requests.length).toBe(before);
    expect(rerun.edges).toEqual(judged.edges);
    expect(rerun.summary?.linkJudge).toMatchObject({
      candidates: 2,
      judged: 2,
      fromCache: 2,
      dropped: 1,
      requests: 0,
      promptTokens: 0,
      completionTokens: 0,
    });

    // Another judge model has no verdicts yet: it is asked.
    const other = await mine(dataDir, join(root, 'out', 'other-model.jsonl'), ['--judge-links'], {
      ...env,
      CHAINSMITH_JUDGE_MODEL: 'second-judge',
    });
    expect(other.summary?.linkJudge).toMatchObject({ model: 'second-judge', judged: 2, fromCache: 0, requests: 2 });
    expect(model.requests.length).toBe(before + 2);
  } finally {
    await model.stop();
  }
});

test('a weak candidate the model calls strong becomes a strong link, and chains (built on strong links by default) take it', async () => {
  const cache = numberedLines('cache', 12);
  const typo = join(root, 'typo');
  await new HistoryBuilder({ 'pkg/__init__.py': '' })
    .pr({
      number: 1,
      title: 'Add the cache',
      landing: 'squash',
      commits: [{ message: 'Add the cache', files: { 'pkg/cache.py': cache } }],
    })
    .pr({
      number: 2,
      title: 'Fix a typo in the cache',
      landing: 'squash',
      commits: [{ message: 'Fix a typo in the cache', files: { 'pkg/cache.py': rewriteLines(cache, 2, 4, 'cache') } }],
    })
    .write(typo);
  const dataDir = join(root, 'data-typo');
  const plain = await mine(dataDir, join(root, 'out', 'typo-plain.jsonl'), [], {}, typo);
  expect(plain.edges.map((edge) => `${pair(edge)} ${edge.strength}`)).toEqual(['2->1 weak']);
  expect(plain.chains).toEqual([]);

  const model = new FakeOpenAI(verdicts);
  const url = await model.start();
  try {
    const judged = await mine(
      dataDir,
      join(root, 'out', 'typo-judged.jsonl'),
      ['--judge-links'],
      { CHAINSMITH_MODEL_BASE_URL: url },
      typo,
    );
    expect(judged.edges.map((edge) => `${pair(edge)} ${edge.strength}`)).toEqual(['2->1 strong']);
    expect(judged.chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([[1, 2]]);
    expect(judged.summary?.linkJudge).toMatchObject({ candidates: 1, judged: 1, dropped: 0 });
  } finally {
    await model.stop();
  }
});

test('a model that answers only 503s leaves the mine going: the candidates are kept as mined, marked not judged with the reason', async () => {
  const model = new FakeOpenAI(verdicts, { faultRate: 1, faults: ['server_error'] });
  const url = await model.start();
  try {
    const out = await mine(join(root, 'data-outage'), join(root, 'out', 'outage.jsonl'), ['--judge-links'], {
      CHAINSMITH_MODEL_BASE_URL: url,
    });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(
      /^warning: the link judge at http:\/\/127\.0\.0\.1:\d+\/v1\/? answered HTTP 503.*links not judged yet are kept as mined/m,
    );
    expect(
      out.edges
        .filter((edge) => edge.kind === 'code-history' && edge.confidence >= 0.6)
        .map(pair)
        .sort(),
    ).toEqual(['2->1', '4->3']);
    for (const edge of out.edges.filter((e) => e.kind === 'code-history' && e.confidence >= 0.6))
      expect(edge.judgement).toMatchObject({ status: 'not judged', reason: expect.stringMatching(/HTTP 503/) });
    expect(out.chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(out.summary?.linkJudge).toMatchObject({ candidates: 2, judged: 0, dropped: 0, notJudged: 2, requests: 0 });
    // Each pair asked at most as often as the retry policy allows (2 tries), none after the outage was seen.
    expect(model.faultCounts.server_error).toBeGreaterThanOrEqual(2);
    expect(model.faultCounts.server_error).toBeLessThanOrEqual(4);
    expect(out.stdout).toMatch(
      /^link judge \(gpt-4o-mini\): 2 candidate links, 0 judged \(0 from the cache\), 0 dropped, 2 not judged/m,
    );
  } finally {
    await model.stop();
  }
});

test('an endpoint nobody listens on: the links are not judged, the mine finishes, and nothing is cached', async () => {
  const gone = new FakeOpenAI(verdicts);
  const url = await gone.start();
  await gone.stop();
  const dataDir = join(root, 'data-refused');
  const out = await mine(dataDir, join(root, 'out', 'refused.jsonl'), ['--judge-links'], {
    CHAINSMITH_MODEL_BASE_URL: url,
  });
  expect(out.code).toBe(0);
  expect(out.summary?.linkJudge).toMatchObject({ candidates: 2, judged: 0, notJudged: 2 });
  expect(out.summary?.linkJudge?.notJudgedReasons.join('\n')).toMatch(/unreachable \(ECONNREFUSED\)/);
  expect(out.chains).toHaveLength(2);

  // Once the model is back, the same mine asks about both pairs: no failure was cached.
  const model = new FakeOpenAI(verdicts);
  const back = await model.start();
  try {
    const again = await mine(dataDir, join(root, 'out', 'refused-again.jsonl'), ['--judge-links'], {
      CHAINSMITH_MODEL_BASE_URL: back,
    });
    expect(again.summary?.linkJudge).toMatchObject({ judged: 2, fromCache: 0, dropped: 1, notJudged: 0 });
  } finally {
    await model.stop();
  }
});

test('a reply that is no verdict is asked again, three times in all, then that link is not judged while the others are', async () => {
  const model = new FakeOpenAI((request, marker) => {
    const shown = request.messages.map((m) => m.content ?? '').join('\n');
    if (shown.includes('#4: Rename printer constants'))
      return { content: JSON.stringify({ verdict: 'maybe', reason: 'unsure' }) };
    return verdicts(request, marker);
  });
  const url = await model.start();
  try {
    const out = await mine(join(root, 'data-malformed'), join(root, 'out', 'malformed.jsonl'), ['--judge-links'], {
      CHAINSMITH_MODEL_BASE_URL: url,
    });
    expect(out.code).toBe(0);
    expect(out.summary?.linkJudge).toMatchObject({ candidates: 2, judged: 1, dropped: 0, notJudged: 1, requests: 4 });
    const printer = out.edges.find((edge) => pair(edge) === '4->3');
    expect(printer?.judgement).toMatchObject({
      status: 'not judged',
      reason: expect.stringMatching(/no valid verdict in 3 attempts.*verdict/),
    });
    expect(out.edges.find((edge) => pair(edge) === '2->1')?.judgement).toMatchObject({
      status: 'judged',
      verdict: 'strong',
    });
    // The second and third asks carry the first reply and what was wrong with it.
    const retried = model.requestsBy('link-judge').filter((request) => request.messages.length === 4);
    expect(retried).toHaveLength(1);
  } finally {
    await model.stop();
  }
});

test('with no model configured, --judge-links says so on stderr and the mine goes on unjudged', async () => {
  const out = await mine(join(root, 'data-none'), join(root, 'out', 'no-model.jsonl'), ['--judge-links']);
  expect(out.code).toBe(0);
  expect(out.stderr).toMatch(
    /^note: --judge-links needs a model endpoint \(CHAINSMITH_MODEL_BASE_URL or model\.baseUrl in the config\): links are not judged in this mine$/m,
  );
  expect(out.summary?.linkJudge).toBeUndefined();
  expect(out.edges.some((edge) => edge.judgement)).toBe(false);
  expect(out.chains).toHaveLength(2);
});
