import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { exportDataset } from '../../src/dataset/write-dataset';
import { writeReport } from '../../src/report/write-report';
import { acceptedRun, rejectedRun, trajectory } from '../dataset/runs';

/** The flags the closed network needs: no background connections, no sandbox, a fresh profile. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let dir: string;
let report: string;
let ids: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chainsmith-report-'));
  const gold = acceptedRun({
    workflowId: 'gold',
    policy: 'gold-replay',
    model: undefined,
    trajectory: {
      ...trajectory('gold'),
      policy: 'gold-replay',
      model: undefined,
      usage: { promptTokens: 0, completionTokens: 0 },
    },
  });
  // Cut before its third stage, whose requirements do not parse: the report shows why, whole.
  const unjudgeable = {
    stage: 2,
    prNumber: 32,
    reason: {
      kind: 'dependencies-unresolvable' as const,
      summary: 'uv cannot resolve the Python requirements: a requirement line does not parse',
      command: 'uv pip compile requirements.txt',
      exitCode: 2,
      tail: "error: Couldn't parse requirement in `requirements.txt` at position 0\n  cause: Trailing `==2` is not allowed",
    },
  };
  const third = acceptedRun({
    workflowId: 'w3',
    chainId: 'example/cache#30-31',
    prs: [30, 31],
    trajectory: trajectory('third'),
    unjudgeable,
  });
  const manifest = await exportDataset([acceptedRun(), rejectedRun(), third, gold], join(dir, 'export'));
  expect(manifest.samples.total).toBe(3);
  report = await writeReport(join(dir, 'export'), { prices: { input: 2.5, output: 10 } });
  ids = (await readFile(join(dir, 'export', 'model-rollouts.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id);
});

test('the report is one self-contained file: no reference to anything outside it', async () => {
  const html = await readFile(report, 'utf8');
  expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
  expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
  expect(html.match(/<svg class="plot"/g)).toHaveLength(6);
  expect(html).toContain('stage 1 (PR #20) was rejected after 4 rounds (last score 0.40)');
  expect(html).toContain('≈ $0.08');
  expect(html).toContain('<h3>Stages nothing could judge (dependencies-unresolvable 1)</h3>');
  expect(html).toContain(
    '<b>example/cache#30-31 (model), stage 3, PR #32</b>: dependencies-unresolvable: uv cannot resolve the Python requirements: a requirement line does not parse',
  );
  expect(html).toContain(
    '<code>$ uv pip compile requirements.txt</code> (exit 2)<pre>error: Couldn&#39;t parse requirement in `requirements.txt` at position 0\n  cause: Trailing `==2` is not allowed</pre>',
  ); // (2 × 12,000 × 2.5 + 2 × 800 × 10) / 1e6 = 0.076 for the two model rollouts
});

test('headless Chromium opens it without console errors or network, the plots render and the trajectory view browses', async () => {
  const profile = await mkdtemp(join(tmpdir(), 'chainsmith-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on(
      'console',
      (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`${m.type()}: ${m.text()}`),
    );
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => !/^(file|data):/.test(r.url()) && requests.push(r.url()));
    await page.setViewportSize({ width: 1240, height: 900 });
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });

    // Every plot draws bars with a real size on screen.
    const bars = await page.$$eval('svg.plot', (svgs) =>
      svgs.map((svg) => ({
        title: svg.getAttribute('aria-label'),
        drawn: [...svg.querySelectorAll('rect.bar')].filter(
          (r) => r.getBoundingClientRect().width > 0 && r.getBoundingClientRect().height > 0,
        ).length,
      })),
    );
    expect(bars.map((b) => b.title)).toEqual([
      'Tokens per sample',
      'Tool calls per sample',
      'Stages by position in the chain',
      'Judge scores',
      'Query leak scores',
      'Rollout cost: API tokens per sample',
    ]);
    for (const b of bars) expect(b.drawn).toBeGreaterThan(0);

    // One conversation at a time; choosing another sample shows it, with its feedback turns.
    const visible = () =>
      page.$$eval('section.trajectory', (s) =>
        s.filter((x) => !x.hasAttribute('hidden')).map((x) => x.getAttribute('data-sample')),
      );
    const first = await visible();
    expect(first).toHaveLength(1);
    const other = [...ids, first[0]].find((id) => id !== first[0])!;
    await page.selectOption('#sample-select', other);
    expect(await visible()).toEqual([other]);
    expect(await page.locator(`section[data-sample="${other}"] .msg.user.feedback`).count()).toBe(2);
    await page.click('#expand-all');
    expect(await page.locator(`section[data-sample="${other}"] details.tool:not([open])`).count()).toBe(0);

    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(50_000);
    // For a look by eye: the screenshot's path.
    process.stdout.write(`report screenshot: ${shot}\n`);

    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  } finally {
    await context.close();
  }
});
