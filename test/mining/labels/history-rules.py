#!/usr/bin/env python3
"""Candidate rules for code-history links, judged leave-one-repository-out on the tuning labels.

Reads the tables history-features.ts writes (one per tuning repository) and, for each rule, prints
per repository the precision and recall of the code-history links it keeps: precision over the
labelled pairs it predicts (blame-stratum rows weighted 1/p, predicted-stratum rows 1), recall over
the blame stratum's real links weighted 1/p. For a rule with a parameter, the value chosen on one
repository (the largest recall at the best precision) is applied to the other: a rule holds only if
what one repository picks works on the other.

    python3 test/mining/labels/history-rules.py /tmp/features/jinja.jsonl /tmp/features/cjson.jsonl
"""
import json
import os
import sys

BAR = 0.6  # DEFAULT_MIN_CONFIDENCE


def weight(row):
    return 1 / row['p'] if row['stratum'] == 'blame' else 1


def score(rows, keep):
    tp = fp = real = hit = 0.0
    for row in rows:
        if row['stratum'] == 'text':
            continue
        kept = bool(row.get('history')) and row['history']['confidence'] >= BAR and keep(row)
        if kept:
            tp, fp = (tp + weight(row), fp) if row['link'] else (tp, fp + weight(row))
        if row['stratum'] == 'blame' and row['link']:
            real += weight(row)
            hit += weight(row) if kept else 0
    return (tp / (tp + fp) if tp + fp else 1.0), (hit / real if real else 0.0), fp


def within(days):
    return lambda row: row['gapDays'] <= days


RULES = {
    'window 365 (default)': lambda _: within(365),
    'window 730': lambda _: within(730),
    'any age': lambda _: within(10**6),
    'weak links need confidence >= t': lambda t: lambda r: within(365)(r)
    and (r['history']['strength'] == 'strong' or r['history']['confidence'] >= t),
    'later PR blamed on < k PRs, or earlier PR holds half its lines': lambda k: lambda r: within(365)(r)
    and (r['b']['partnersInWindow'] < k or r['history']['dominance'] >= 0.5),
}
PARAMETERS = {
    'weak links need confidence >= t': [0.6, 0.65, 0.7, 0.75, 0.8, 0.9],
    'later PR blamed on < k PRs, or earlier PR holds half its lines': [2, 3, 4, 6],
}


def main(paths):
    tables = {os.path.basename(p).split('.')[0]: [json.loads(line) for line in open(p)] for p in paths}
    for name, rule in RULES.items():
        values = PARAMETERS.get(name)
        for repo, rows in tables.items():
            if values is None:
                precision, recall, fp = score(rows, rule(None))
                print(f'{name}: {repo} precision {precision:.3f} recall {recall:.3f} false {fp:.1f}')
                continue
            # Chosen on `repo` (best precision, then recall), reported on the other repository.
            best = max(values, key=lambda v: (round(score(rows, rule(v))[0], 3), score(rows, rule(v))[1]))
            for other, other_rows in tables.items():
                if other != repo:
                    precision, recall, fp = score(other_rows, rule(best))
                    print(f'{name} (chosen on {repo}: {best}): {other} precision {precision:.3f} recall {recall:.3f} false {fp:.1f}')

if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit('error: usage: history-rules.py TABLE.jsonl TABLE.jsonl (history-features.js output)')
    main(sys.argv[1:])
