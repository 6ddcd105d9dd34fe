# Pairs a miner predicts that the drawn sample lacks, as compact dossiers for the same blind labelling
# (stratum "predicted": they count for precision and chains, never for recall).
# Usage: python3 sample-predicted.py SCAN_DIR DOSSIER_DIR PREDICTED_DIR LABELS_DIR OUT_DIR
# PREDICTED_DIR holds <short>.jsonl of {"from","to"} (mining-quality writes them with
# CHAINSMITH_BENCH_LINKS_OUT); a predicted pair no scan proposed has no dossier and is only counted.
import json, os, re, sys
scan_dir, dossier_dir, predicted_dir, labels_dir, out_root = sys.argv[1:6]
key = lambda a, b: (min(a, b), max(a, b))
for repo in ['jinja', 'cjson', 'json', 'cobra', 'jsoup']:
    path = f'{predicted_dir}/{repo}.jsonl'
    if not os.path.exists(path): continue
    labelled = {key(r['from'], r['to']) for r in map(json.loads, open(f'{labels_dir}/{repo}.jsonl'))}
    universe = {key(r['from'], r['to']): (r['from'], r['to']) for r in map(json.loads, open(f'{scan_dir}/{repo}.jsonl'))}
    wanted = {key(r['from'], r['to']) for r in map(json.loads, filter(str.strip, open(path)))} - labelled
    inside = [universe[k] for k in sorted(wanted) if k in universe]
    os.makedirs(f'{out_root}/{repo}', exist_ok=True)
    with open(f'{out_root}/{repo}/selection.jsonl', 'w') as f:
        for b, a in inside: f.write(json.dumps({'from': b, 'to': a, 'stratum': 'predicted', 'p': 1.0}) + '\n')
    by_b = {}
    for b, a in inside: by_b.setdefault(b, set()).add(a)
    for b, tos in by_b.items():
        src = open(f'{dossier_dir}/{repo}/B-{b}.md').read()
        parts = re.split(r'(?m)^(?=# Earlier PR #)', src)
        keep = [s for s in parts[1:] if int(re.match(r'# Earlier PR #(\d+)', s).group(1)) in tos]
        def cut(section, diff_budget):
            out = []
            for sub in re.split(r'(?m)^(?=## )', section):
                lim = 2500 if sub.startswith('## Texts') else 1500 if sub.startswith('## Lines') else diff_budget if sub.startswith('## Diff') else None
                out.append(sub if lim is None or len(sub) <= lim else sub[:lim] + f'\n[trimmed {len(sub) - lim} bytes]\n\n')
            return ''.join(out)
        open(f'{out_root}/{repo}/B-{b}.md', 'w').write(cut(parts[0], 9000) + ''.join(cut(s, 3500 if len(keep) <= 4 else 1500) for s in keep))
    print(repo, 'predicted unlabelled', len(wanted), 'with a dossier', len(inside), 'outside the scan', len(wanted) - len(inside))
