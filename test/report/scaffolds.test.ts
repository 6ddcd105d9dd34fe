// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportDataset } from '../../src/dataset/write-dataset';
import { writeReport } from '../../src/report/write-report';
import { acceptedRun, bashRun } from '../dataset/runs';

test('the report of an export holding both scaffolds compares them: samples, tokens and tool calls or commands per scaffold', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-report-scaffolds-'));
  await exportDataset([acceptedRun(), bashRun()], dir);
  const html = await readFile(await writeReport(dir), 'utf8');

  expect(html).toContain('2 (2 model; by scaffold: 1 tools, 1 bash)');
  expect(html).toContain('chain runs · bash scaffold</th><td>1 (accepted 1 = 100.0%, left out 0)');
  expect(html).toMatch(/model · tools scaffold \(1\): tool calls<\/th><td>mean 12\.0 /);
  expect(html).toMatch(/model · bash scaffold \(1\): commands<\/th><td>mean 9\.0 /);
  expect(html).toMatch(/model · bash scaffold \(1\): tokens \(o200k_base\)<\/th><td>mean \d/);
  // The plots keep the two apart, and say how a command is counted.
  expect(html).toContain('model rollout · bash');
  expect(html).toContain('a bash-scaffold command counts as one call');

  // The bash conversation: its outputs fold like tool results, its facts name the scaffold and count commands.
  const sections = html.split('<section class="trajectory"').slice(1);
  expect(sections.map((x) => /· (\w+) scaffold<br>/.exec(x)?.[1]).sort()).toEqual(['bash', 'tools']);
  const section = sections.find((x) => x.includes('· bash scaffold<br>'))!;
  expect(section).toContain('9 commands');
  expect(section.match(/<summary>command output · /g)).toHaveLength(6);
  expect(section).not.toContain('tool result');
});
