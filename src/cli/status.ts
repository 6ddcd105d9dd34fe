import type { Client } from '@temporalio/client';
import { progressQuery, type ChainProgress } from '../workflows/messages';

export async function statusCommand(client: Client, workflowId?: string): Promise<void> {
  if (workflowId) {
    const handle = client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    // A closed workflow answers from its result, so no worker needs to be running.
    const progress = description.status.name === 'RUNNING' ? await handle.query(progressQuery) : ((await handle.result()) as ChainProgress);
    console.log(`${workflowId}: ${description.status.name}, chain ${progress.status}${progress.reason ? ` (${progress.reason})` : ''}`);
    for (const s of progress.results) {
      const scores = s.rounds.map((r) => r.score.toFixed(2)).join(', ');
      const conflicts = s.carry?.conflicts.length ? `, carry conflicts: ${s.carry.conflicts.join(' ')}` : '';
      console.log(`  PR #${s.prNumber}: ${s.status}, rounds ${s.rounds.length} (scores ${scores || '-'})${conflicts}`);
    }
    return;
  }
  const rows: string[][] = [['WORKFLOW ID', 'RUN', 'CHAIN', 'STAGE', 'LENGTH']];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'chainWorkflow'` })) {
    const attr = (k: string) => String((wf.searchAttributes as Record<string, unknown[]>)?.[k]?.[0] ?? '-');
    rows.push([wf.workflowId, wf.status.name, attr('ChainStatus'), attr('ChainStage'), attr('ChainLength')]);
    if (rows.length > 200) break;
  }
  if (rows.length === 1) return console.log('no chains yet: start some with `chainsmith start --chains FILE`');
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
}
