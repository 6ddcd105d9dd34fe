import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exportDataset } from '../../src/dataset/write-dataset';
import { acceptedRun, rejectedRun, trajectory } from './runs';

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
  if (!existsSync(PYTHON)) throw new Error(`no Python venv with datasets at ${PYTHON}: run \`bash scripts/provision.sh python\``);
  const out = await mkdtemp(join(tmpdir(), 'chainsmith-hf-'));
  const second = acceptedRun({ workflowId: 'w2', chainId: 'example/cache#50', prs: [50], stages: [{ prNumber: 50, status: 'accepted', rounds: [{ round: 0, score: 1, passed: true }] }], trajectory: trajectory('second') });
  const manifest = await exportDataset([acceptedRun(), rejectedRun(), second], out);
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', CHECK, out], { env: { ...process.env, HF_DATASETS_OFFLINE: '1', HF_HOME: join(out, '.hf') } });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result.rows).toEqual([2, 2]);
  expect(result.columns).toEqual([['id', 'messages', 'metadata', 'tools'], ['conversations', 'id', 'metadata', 'system', 'tools']]);
  expect(result.calls).toBe(2 * (12 + 12));
  expect(result.undeclared).toEqual([]);
  const written = (await readFile(join(out, 'model-rollouts.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  expect(result.ids).toEqual(written.map((r) => r.id));
  expect(result.tokens).toEqual(written.map((r) => r.metadata.tokens.total));
  expect(manifest.samples.total).toBe(2);
});
