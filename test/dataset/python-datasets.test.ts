// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exportDataset } from '../../src/dataset/write-dataset';
import { acceptedRun, bashRun, bashTrajectory, rejectedRun, trajectory } from './runs';

/** The venv scripts/provision.sh (step `python`) installs `datasets` into. */
const PYTHON = join(process.env.CHAINSMITH_HOME ?? join(homedir(), '.chainsmith'), 'python', 'bin', 'python');

/** Loads both files the way a trainer would and checks every tool call against the row's own `tools`. */
const CHECK = `
import json, sys
from datasets import load_dataset
out = sys.argv[1]
openai = load_dataset("json", data_files=f"{out}/model-rollouts.jsonl", split="train")
sharegpt = load_dataset("json", data_files=f"{out}/model-rollouts.sharegpt.jsonl", split="train")
undeclared, calls = [], 0
for row in openai:
    declared = {t["function"]["name"] for t in row["tools"]}
    for m in row["messages"]:
        for c in (m.get("tool_calls") or []):
            calls += 1
            json.loads(c["function"]["arguments"])
            if c["function"]["name"] not in declared:
                undeclared.append(c["function"]["name"])
for row in sharegpt:
    declared = {t["function"]["name"] for t in json.loads(row["tools"])}
    for turn in row["conversations"]:
        if turn["from"] == "function_call":
            calls += 1
            if json.loads(turn["value"])["name"] not in declared:
                undeclared.append(json.loads(turn["value"])["name"])
print(json.dumps({"rows": [openai.num_rows, sharegpt.num_rows], "columns": [sorted(openai.column_names), sorted(sharegpt.column_names)],
                  "calls": calls, "undeclared": undeclared, "ids": list(openai["id"]), "tokens": [m["tokens"]["total"] for m in openai["metadata"]]}))
`;

test("the exported JSONL loads with Python's datasets.load_dataset('json') and every tool call is declared in its row's tools", async () => {
  if (!existsSync(PYTHON))
    throw new Error(`no Python venv with datasets at ${PYTHON}: run \`bash scripts/provision.sh python\``);
  const out = await mkdtemp(join(tmpdir(), 'chainsmith-hf-'));
  const second = acceptedRun({
    workflowId: 'w2',
    chainId: 'example/cache#50',
    prs: [50],
    stages: [{ prNumber: 50, status: 'accepted', rounds: [{ round: 0, score: 1, passed: true }] }],
    trajectory: trajectory('second'),
  });
  const manifest = await exportDataset([acceptedRun(), rejectedRun(), second], out);
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', CHECK, out], {
    env: { ...process.env, HF_DATASETS_OFFLINE: '1', HF_HOME: join(out, '.hf') },
  });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result.rows).toEqual([2, 2]);
  expect(result.columns).toEqual([
    ['id', 'messages', 'metadata', 'tools'],
    ['conversations', 'id', 'metadata', 'system', 'tools'],
  ]);
  expect(result.calls).toBe(2 * (12 + 12));
  expect(result.undeclared).toEqual([]);
  const written = (await readFile(join(out, 'model-rollouts.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(result.ids).toEqual(written.map((r) => r.id));
  expect(result.tokens).toEqual(written.map((r) => r.metadata.tokens.total));
  expect(manifest.samples.total).toBe(2);
});

/** Loads every file of an export holding both scaffolds; bash rows are checked as plain chat with one block per reply. */
const CHECK_BOTH = `
import json, re, sys
from datasets import load_dataset
out = sys.argv[1]
result = {}
for name in ["model-rollouts", "model-rollouts.sharegpt", "model-rollouts-bash", "model-rollouts-bash.sharegpt"]:
    ds = load_dataset("json", data_files=f"{out}/{name}.jsonl", split="train")
    result[name] = {"rows": ds.num_rows, "columns": sorted(ds.column_names), "scaffolds": sorted({m["scaffold"] for m in ds["metadata"]})}
bash = load_dataset("json", data_files=f"{out}/model-rollouts-bash.jsonl", split="train")
blocks, roles = [], set()
for row in bash:
    for m in row["messages"]:
        roles.add(m["role"])
        if m["role"] == "assistant":
            blocks.append(len(re.findall(r"^\`\`\`bash$", m["content"], re.M)))
result["roles"] = sorted(roles)
result["blocks"] = sorted(set(blocks))
result["commands"] = [m["toolCalls"] for m in bash["metadata"]]
print(json.dumps(result))
`;

test('an export holding both scaffolds loads with datasets: tools rows with their tools, bash rows as plain chat with one block per reply', async () => {
  if (!existsSync(PYTHON))
    throw new Error(`no Python venv with datasets at ${PYTHON}: run \`bash scripts/provision.sh python\``);
  const out = await mkdtemp(join(tmpdir(), 'chainsmith-hf-both-'));
  const secondBash = bashRun({
    workflowId: 'w2-bash',
    chainId: 'example/cache#50',
    prs: [50],
    stages: [{ prNumber: 50, status: 'accepted', rounds: [{ round: 0, score: 1, passed: true }] }],
    trajectory: bashTrajectory('second'),
  });
  const manifest = await exportDataset([acceptedRun(), bashRun(), secondBash], out);
  expect(manifest.samples.byScaffold).toEqual({ tools: 1, bash: 2 });
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', CHECK_BOTH, out], {
    env: { ...process.env, HF_DATASETS_OFFLINE: '1', HF_HOME: join(out, '.hf') },
  });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result['model-rollouts']).toEqual({
    rows: 1,
    columns: ['id', 'messages', 'metadata', 'tools'],
    scaffolds: ['tools'],
  });
  expect(result['model-rollouts.sharegpt']).toEqual({
    rows: 1,
    columns: ['conversations', 'id', 'metadata', 'system', 'tools'],
    scaffolds: ['tools'],
  });
  expect(result['model-rollouts-bash']).toEqual({
    rows: 2,
    columns: ['id', 'messages', 'metadata'],
    scaffolds: ['bash'],
  });
  expect(result['model-rollouts-bash.sharegpt']).toEqual({
    rows: 2,
    columns: ['conversations', 'id', 'metadata', 'system'],
    scaffolds: ['bash'],
  });
  expect(result.roles).toEqual(['assistant', 'system', 'user']);
  expect(result.blocks).toEqual([1]);
  expect(result.commands).toEqual([9, 9]);
});
