#!/usr/bin/env python3
"""How far any scorer over the code-history rule's features can go, judged leave-one-repository-out.

Reads the tables history-features.ts writes (blame of any age, so pairs outside the one-year window
are candidates too). For each fold (fit on one tuning repository, score on the other) it prints the
best recall a scorer reaches at link precision >= 0.95 and >= 0.9:

- the miner's own confidence, one threshold, at any age;
- the same with the blame window as a second parameter;
- a logistic regression and decision trees of depth 2 and 3 over 27 features of the table;
- other settings of those (oracle only), also fitted and scored on the same repository: how well the
  features separate real from false links at best, an optimistic bound.

"oracle" picks the threshold on the scored repository itself (an upper bound: the most a scorer of
that shape can do there); "fitted" uses the threshold that met the precision on the fitting repository.
The current rules' point is the default mine's links as the table records them (`linked`).

Figures are the bench's (scores.ts): precision over the labelled pairs linked (blame rows weighted
1/p, predicted rows 1), recall over the drawn real links (text rows 1, blame rows 1/p), text-rule
links as the default mine makes them. Pairs with no code-history edge (the later PR a sweep, a bot's,
oversized; no blamed line) are out of any scorer's reach; the ceiling line says how far that caps recall.

Analysis only, not the miner: needs numpy and scikit-learn (pip install numpy scikit-learn).

    python3 test/mining/labels/history-scorers.py /tmp/features/jinja.jsonl /tmp/features/cjson.jsonl
"""
import json
import math
import os
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

TARGETS = (0.95, 0.9)


def weight(row):
    return 1 / row['p'] if row['stratum'] == 'blame' else 1


def features(row):
    h, a, b = row['history'], row['a'], row['b']
    log = math.log1p
    return [
        h['confidence'],
        h['strength'] == 'strong',
        log(h['lines']),
        h['doc'] / h['lines'] if h['lines'] else 0,
        h['share'],
        log(h['changed']),
        h['blamedKind'] == 'code',
        h['blamedKind'] == 'tests',
        h['rework'],
        h['regression'],
        h['fixWords'],
        h['bothName'],
        h['dominance'],
        1 / h['rank'],
        log(row['gapDays']),
        row['gapDays'] <= 365,
        row['openedAfter'],
        row['sameAuthor'],
        'text' in row,
        b['fix'],
        a['fix'],
        log(b['lines']),
        log(a['lines']),
        log(b['partners']),
        log(a['partners']),
        b['test'] > 0,
        a['test'] > 0,
    ]


def text_linked(row):
    """Linked by the default mine through its text rules (these stay whatever the scorer does)."""
    return row['linked'] and not row.get('linkedAs', '').startswith('code-history')


def evaluate(rows, keep):
    """Precision and recall as the bench computes them when code-history links are `keep(row)`."""
    tp = fp = real = hit = 0.0
    for row in rows:
        linked = text_linked(row) or (row['stratum'] != 'text' and 'history' in row and keep(row))
        w = weight(row)
        if linked:
            tp, fp = (tp + w, fp) if row['link'] else (tp, fp + w)
        if row['stratum'] != 'predicted' and row['link']:
            real += w
            hit += w if linked else 0
    return (tp / (tp + fp) if tp + fp else 1.0), (hit / real if real else 0.0)


def sweep(rows, score):
    """(threshold, precision, recall) for every cut of `score` over the rows with a code-history edge."""
    scored = [score(r) for r in rows if 'history' in r and r['stratum'] != 'text']
    cuts = sorted(set(scored), reverse=True) + [math.inf]
    return [(t, *evaluate(rows, lambda r, t=t: score(r) >= t)) for t in cuts]


def best_at(points, target):
    ok = [p for p in points if p[1] >= target - 1e-9]
    return max(ok, key=lambda p: (p[2], p[1])) if ok else (math.inf, 1.0, 0.0)


def models():
    lr = lambda: make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000))
    tree = lambda depth: lambda: DecisionTreeClassifier(max_depth=depth, min_samples_leaf=5, random_state=0)
    return {'logistic regression': lr, 'decision tree, depth 2': tree(2), 'decision tree, depth 3': tree(3)}


def fit(rows, make):
    train = [r for r in rows if 'history' in r and r['stratum'] != 'text']
    x = np.array([features(r) for r in train], dtype=float)
    y = np.array([r['link'] for r in train])
    model = make()
    last = model.steps[-1][0] + '__' if hasattr(model, 'steps') else ''
    model.fit(x, y, **{last + 'sample_weight': np.array([weight(r) for r in train])})
    return model


def scorer(model, rows):
    """The model's probability of a link for each row with a code-history edge, computed once."""
    scored = [r for r in rows if 'history' in r]
    probability = model.predict_proba(np.array([features(r) for r in scored], dtype=float))[:, 1]
    table = {id(r): float(s) for r, s in zip(scored, probability)}
    return lambda r: table[id(r)]


def report(name, fit_rows, test_rows, score_fit, score_test):
    line = [name]
    for target in TARGETS:
        oracle = best_at(sweep(test_rows, score_test), target)
        chosen = best_at(sweep(fit_rows, score_fit), target)[0]
        fitted = evaluate(test_rows, lambda r: score_test(r) >= chosen)
        line.append(f'@{target}: oracle {oracle[2]:.3f} (p {oracle[1]:.3f}), fitted {fitted[1]:.3f} (p {fitted[0]:.3f})')
    print('  ' + ' | '.join(line))


def main(paths):
    tables = {os.path.basename(p).split('.')[0]: [json.loads(line) for line in open(p)] for p in paths}
    for fit_name, fit_rows in tables.items():
        for test_name, test_rows in tables.items():
            if test_name == fit_name:
                continue
            print(f'fit on {fit_name}, scored on {test_name}')
            current = evaluate(test_rows, lambda r: r['linked'])
            ceiling = evaluate(test_rows, lambda r: True)
            print(f'  current rules: precision {current[0]:.3f} recall {current[1]:.3f}')
            print(f'  ceiling (every code-history edge, any age): precision {ceiling[0]:.3f} recall {ceiling[1]:.3f}')
            confidence = lambda r: r['history']['confidence']
            report('miner confidence, any age', fit_rows, test_rows, confidence, confidence)
            # Window and threshold as a pair: the window chosen on the fitting repository for each target.
            for target in TARGETS:
                best = None
                for days in (365, 730, 1095, 1825, 10**6):
                    windowed = lambda r, d=days: r['history']['confidence'] if r['gapDays'] <= d else -1
                    point = best_at(sweep(fit_rows, windowed), target)
                    if best is None or point[2] > best[1][2]:
                        best = (days, point, windowed)
                days, point, windowed = best
                fitted = evaluate(test_rows, lambda r: windowed(r) >= point[0])
                oracle = max(
                    (best_at(sweep(test_rows, lambda r, d=d: r['history']['confidence'] if r['gapDays'] <= d else -1), target)
                     for d in (365, 730, 1095, 1825, 10**6)),
                    key=lambda p: p[2],
                )
                print(f'  window + confidence @{target}: oracle {oracle[2]:.3f} (p {oracle[1]:.3f}), '
                      f'fitted (window {days} d, t {point[0]}) {fitted[1]:.3f} (p {fitted[0]:.3f})')
            for name, make in models().items():
                model = fit(fit_rows, make)
                report(name, fit_rows, test_rows, scorer(model, fit_rows), scorer(model, test_rows))
    settings(tables)


def variants():
    lr = lambda c: lambda: make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
    tree = lambda d, leaf: lambda: DecisionTreeClassifier(max_depth=d, min_samples_leaf=leaf, random_state=0)
    found = {f'logistic regression C={c}': lr(c) for c in (0.01, 0.1, 1, 10)}
    found.update({f'tree depth {d}, {leaf} a leaf': tree(d, leaf) for d in (2, 3, 4) for leaf in (3, 10)})
    return found


def settings(tables):
    """Other settings, oracle thresholds only; fitted and scored on the same repository too (optimistic)."""
    print('other settings, oracle recall @0.95 / @0.9')
    for name, make in variants().items():
        for fit_name, fit_rows in tables.items():
            model = fit(fit_rows, make)
            for test_name, test_rows in tables.items():
                points = sweep(test_rows, scorer(model, test_rows))
                how = 'in-sample' if test_name == fit_name else f'fit on {fit_name}'
                recalls = ' / '.join(f'{best_at(points, t)[2]:.3f}' for t in TARGETS)
                print(f'  {name}, {how}, scored on {test_name}: {recalls}')


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit('error: usage: history-scorers.py TABLE.jsonl TABLE.jsonl (history-features.js output)')
    main(sys.argv[1:])
