import type { Message, TrainingSample } from '../schemas';
import { escapeHtml } from './html';
import { sampleLabel } from './plots';

/** Longer message texts are cut in the page (the dataset keeps them whole). */
const MAX_CHARS = 20_000;

function text(content: string): string {
  const cut =
    content.length > MAX_CHARS
      ? `${content.slice(0, MAX_CHARS)}\n[… ${content.length - MAX_CHARS} more characters in the dataset]`
      : content;
  return `<pre>${escapeHtml(cut)}</pre>`;
}

/** A tool call's arguments: a lone command or content shown as is, anything else as indented JSON. */
function callBody(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return text(args);
  }
  const values = parsed && typeof parsed === 'object' ? Object.entries(parsed as Record<string, unknown>) : [];
  if (values.length === 1 && typeof values[0][1] === 'string') return text(values[0][1] as string);
  return text(JSON.stringify(parsed, null, 2));
}

/** A command's output under the bash scaffold (see agent/bash-scaffold.ts): shown like a tool result. */
const isCommandOutput = (m: Message) => m.role === 'user' && m.content.startsWith('<returncode>');

function kindOf(m: Message): string {
  if (m.role !== 'user') return m.role;
  if (/^A reviewer/.test(m.content)) return 'user feedback';
  if (/^(Overview of the work ahead|Task \d+ of \d+)/.test(m.content)) return 'user task';
  return 'user';
}

function messageHtml(m: Message, anchor: string): string {
  const kind = kindOf(m);
  const label = kind === 'user task' ? 'task' : kind === 'user feedback' ? 'judge feedback' : m.role;
  const head = `<div class="role">${label}</div>`;
  if (m.role === 'assistant') {
    const calls = (m.tool_calls ?? [])
      .map(
        (c) =>
          `<div class="call"><span class="tool">${escapeHtml(c.function.name)}</span>${callBody(c.function.arguments)}</div>`,
      )
      .join('');
    return `<div class="msg assistant" id="${anchor}">${head}${m.content ? text(m.content) : ''}${calls}</div>`;
  }
  if (m.role === 'tool' || isCommandOutput(m)) {
    const lines = m.content!.split('\n').length;
    const what = m.role === 'tool' ? 'tool result' : 'command output';
    return `<details class="msg tool" id="${anchor}"${lines <= 6 ? ' open' : ''}><summary>${what} · ${lines} line${lines > 1 ? 's' : ''}</summary>${text(m.content!)}</details>`;
  }
  return `<div class="msg ${kind}" id="${anchor}">${head}${text(m.content)}</div>`;
}

/** "Task 2 of 3: <first line of the query>" or "feedback: <first line of the judge's words>". */
function tocLine(content: string, kind: string): string {
  const lines = content.split('\n').filter((l) => /\S/.test(l));
  if (kind === 'user feedback') return `feedback: ${lines[1] ?? lines[0]}`;
  const task = lines.findIndex((l) => /^Task \d+ of \d+/.test(l));
  return task >= 0 ? `${lines[task]} ${lines[task + 1] ?? ''}`.trim() : lines[0];
}

/** One sample's conversation, with a table of contents of its task and feedback turns. */
function trajectoryHtml(sample: TrainingSample, index: number, hidden: boolean): string {
  const anchor = (i: number) => `t${index}-m${i}`;
  const toc = sample.messages
    .map((m, i) => ({ m, i, kind: kindOf(m) }))
    .filter(({ kind }) => kind === 'user task' || kind === 'user feedback')
    .map(
      ({ m, i, kind }) =>
        `<li class="${kind}"><a href="#${anchor(i)}">${escapeHtml(tocLine(m.content as string, kind))}</a></li>`,
    )
    .join('');
  const meta = sample.metadata;
  const facts = [
    `${meta.repo} · PRs ${meta.prs.map((n) => `#${n}`).join(' → ')}`,
    `${meta.policy}${meta.model ? ` (${meta.model})` : ''} · ${meta.scaffold ?? 'tools'} scaffold`,
    `${meta.tokens?.total.toLocaleString('en-US') ?? '?'} tokens · ${meta.toolCalls} ${meta.scaffold === 'bash' ? 'commands' : 'tool calls'} · ${sample.messages.length} messages`,
    `rounds per stage: ${meta.stages.map((s) => `${s.rounds} (score ${s.score.toFixed(2)})`).join(', ')}`,
  ];
  return (
    `<section class="trajectory" data-sample="${escapeHtml(sample.id)}"${hidden ? ' hidden' : ''}>` +
    `<p class="facts">${facts.map(escapeHtml).join('<br>')}</p><ol class="toc">${toc}</ol>` +
    `<div class="messages">${sample.messages.map((m, i) => messageHtml(m, anchor(i))).join('')}</div></section>`
  );
}

/** The browsable view: a chooser over up to `limit` samples and each one's conversation. */
export function trajectoryView(samples: TrainingSample[], selected?: string, limit = 25): string {
  if (!samples.length) return '<p class="empty">No accepted sample yet: nothing to browse.</p>';
  const shown = samples.slice(0, limit);
  const first = Math.max(
    0,
    shown.findIndex((s) => s.id === selected),
  );
  const options = shown
    .map(
      (s, i) =>
        `<option value="${escapeHtml(s.id)}"${i === first ? ' selected' : ''}>${escapeHtml(`${sampleLabel(s)} · ${s.metadata.repo} · ${s.metadata.policy} · ${s.metadata.scaffold ?? 'tools'} · ${s.id}`)}</option>`,
    )
    .join('');
  const more = samples.length > limit ? `<p class="note">Showing ${limit} of ${samples.length} samples.</p>` : '';
  return (
    `<div class="chooser"><label for="sample-select">Sample</label> <select id="sample-select">${options}</select>` +
    ` <button type="button" id="expand-all">expand all results</button> <button type="button" id="collapse-all">collapse all</button></div>${more}` +
    shown.map((s, i) => trajectoryHtml(s, i, i !== first)).join('')
  );
}
