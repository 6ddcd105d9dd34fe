/** Text made safe for HTML and SVG, element content and attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return '–';
  if (Math.abs(x) >= 1e6) return `${(x / 1e6).toFixed(x >= 1e7 ? 0 : 1)}M`;
  if (Math.abs(x) >= 1e4) return `${(x / 1e3).toFixed(0)}k`;
  if (Math.abs(x) >= 1e3) return `${(x / 1e3).toFixed(1)}k`;
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}
