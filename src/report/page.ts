import { escapeHtml } from './html';

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #111827; background: #f9fafb; }
header, main { max-width: 1180px; margin: 0 auto; padding: 16px 24px; }
header h1 { margin: 8px 0 0; font-size: 22px; }
header p { margin: 4px 0; color: #4b5563; }
h2 { font-size: 17px; margin: 28px 0 10px; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px; }
.plot { background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; max-width: 100%; height: auto; }
.plot .title { font-weight: 600; font-size: 14px; fill: #111827; }
.plot .subtitle, .plot .tick, .plot .legend, .plot .axis-label, .plot .total { font-size: 11px; fill: #4b5563; }
.plot .empty { font-size: 13px; fill: #9ca3af; }
.plot .grid { stroke: #f3f4f6; }
.plot .axis { stroke: #6b7280; }
.plot .ref { stroke-dasharray: 5 4; stroke-width: 1.5; }
.plot .ref-label { font-size: 11px; }
table.summary { border-collapse: collapse; background: #fff; }
table.summary th, table.summary td { text-align: left; padding: 4px 12px; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
.chooser { position: sticky; top: 0; background: #f9fafb; padding: 8px 0; z-index: 1; }
.facts { color: #374151; }
.toc { columns: 2; font-size: 13px; }
.toc .user.feedback a { color: #b45309; }
.msg { border: 1px solid #e5e7eb; border-radius: 6px; margin: 8px 0; padding: 6px 10px; background: #fff; }
.msg .role { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #6b7280; }
.msg.user.task { border-left: 4px solid #2563eb; }
.msg.user.feedback { border-left: 4px solid #d97706; background: #fffbeb; }
.msg.system { background: #f3f4f6; }
.msg.assistant { border-left: 4px solid #16a34a; }
.msg.tool summary { cursor: pointer; color: #4b5563; font-size: 12px; }
.call .tool { display: inline-block; font: 600 12px ui-monospace, monospace; background: #ecfdf5; color: #065f46; padding: 0 6px; border-radius: 4px; }
pre { white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace; margin: 4px 0; }
.note, .empty { color: #6b7280; }
`;

/** Switches the shown conversation and opens or closes every tool result; the page works without it too. */
const SCRIPT = `
(function () {
  var select = document.getElementById('sample-select');
  var sections = document.querySelectorAll('section.trajectory');
  function show() {
    for (var i = 0; i < sections.length; i++) sections[i].hidden = sections[i].getAttribute('data-sample') !== select.value;
  }
  function setAll(open) {
    var shown = document.querySelectorAll('section.trajectory:not([hidden]) details.tool');
    for (var i = 0; i < shown.length; i++) shown[i].open = open;
  }
  if (select) {
    select.addEventListener('change', show);
    document.getElementById('expand-all').addEventListener('click', function () { setAll(true); });
    document.getElementById('collapse-all').addEventListener('click', function () { setAll(false); });
    show();
  }
})();
`;

/**
 * The whole report as one file: styles, plots (SVG) and script inline, no external reference of any
 * kind, so it opens from file:// on a machine without network.
 */
export function page(parts: {
  title: string;
  subtitle: string;
  summary: string;
  plots: string[];
  trajectories: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(parts.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(parts.title)}</h1><p>${escapeHtml(parts.subtitle)}</p></header>
<main>
<h2>Summary</h2>
${parts.summary}
<h2>Plots</h2>
<div class="plots">${parts.plots.join('\n')}</div>
<h2>Trajectories</h2>
${parts.trajectories}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
