import { HistoryBuilder } from './history-builder';

const core = (version: string) => `def core(x):\n    y = x * 2\n    z = y + 1\n    return z  # ${version}\n`;

/**
 * The history before and after a week of new PRs. Before: 1 → 2 → 3 and 4 → 5. After, also: #6 fixes
 * a regression from #3 (grows the first chain), #7 → #8 a new chain, and #9 rewrites lines #5 wrote
 * without saying so (only blaming a new PR against the old history links it).
 */
export function growingHistory(withNew: boolean): HistoryBuilder {
  const h = new HistoryBuilder({ 'pkg/__init__.py': '' });
  const pr = (number: number, title: string, files: Record<string, string>) =>
    h.pr({
      number,
      title,
      landing: 'merge',
      mergedAt: `2024-05-${String(number).padStart(2, '0')}T10:00:00Z`,
      commits: [{ message: title, files }],
    });
  pr(1, 'Start the parser', { 'pkg/parser.py': 'def parse(s):\n    return s\n' });
  pr(2, 'Follow-up to #1: strip input', { 'pkg/parser.py': 'def parse(s):\n    return s.strip()\n' });
  pr(3, 'Follow-up to #2: lower-case input', { 'pkg/parser.py': 'def parse(s):\n    return s.strip().lower()\n' });
  pr(4, 'Start the core', { 'pkg/core.py': 'def core(x):\n    return x\n' });
  pr(5, 'Follow-up to #4: compute properly', { 'pkg/core.py': core('v1') });
  if (!withNew) return h;
  pr(6, 'Fix regression from #3: keep case of quoted text', {
    'pkg/parser.py': 'def parse(s):\n    return s.strip()\n',
  });
  pr(7, 'Start the printer', { 'pkg/printer.py': 'def show(x):\n    print(x)\n' });
  pr(8, 'Follow-up to #7: print with a prefix', { 'pkg/printer.py': 'def show(x):\n    print(">", x)\n' });
  pr(9, 'Tidy up', { 'pkg/core.py': 'def core(x):\n    y = x * 3\n    z = y - 1\n    return z  # v2\n' });
  return h;
}
