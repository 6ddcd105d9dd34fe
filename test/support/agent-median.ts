/**
 * The bash command a scripted agent uses to add its own median() to the demo package (a correct one,
 * unlike the gold #2), with `docstring` as a marker to tell its code from the gold code later.
 */
export function agentMedianCommand(docstring: string): string {
  return [
    "cat >> tally/stats.py <<'PY'",
    '',
    '',
    'def median(values):',
    `    """${docstring}"""`,
    '    if not values:',
    '        raise ValueError("median() of an empty sequence")',
    '    ordered = sorted(values)',
    '    middle = len(ordered) // 2',
    '    if len(ordered) % 2 == 1:',
    '        return ordered[middle]',
    '    return (ordered[middle - 1] + ordered[middle]) / 2',
    'PY',
    `sed -i 's/^from tally.stats import mean$/from tally.stats import mean, median/; s/^__all__ = \\["mean"\\]$/__all__ = ["mean", "median"]/' tally/__init__.py`,
  ].join('\n');
}
