# Chooses which candidate pairs get labelled: every text-reference pair (p = 1), and whole later-PR
# clusters of blame-only pairs drawn uniformly with a fixed seed (about 100 later PRs per repository,
# p = 100 / later PRs with blame pairs). Writes selection.jsonl (pair, stratum, p) and compact dossiers
# holding only the chosen pairs, with diffs and texts cut further so one labeller can read a repository.
# Usage: python3 sample-pairs.py SCAN_DIR DOSSIER_DIR OUT_DIR  (SCAN_DIR holds candidates-main's
# <short>.jsonl records, DOSSIER_DIR its <short>/B-<n>.md files). The labels of 2026-11-26 used it as is.
import json, os, random, re, sys
TARGET = 100
scan_dir, dossier_dir, out_root = sys.argv[1:4]
for repo in ['jinja', 'cjson', 'json', 'cobra', 'jsoup']:
    rows = [json.loads(l) for l in open(f'{scan_dir}/{repo}.jsonl')]
    text = [r for r in rows if set(r['scans']) - {'blame'}]
    blame_b = sorted({r['from'] for r in rows if r['scans'] == ['blame']})
    p = min(1.0, TARGET / len(blame_b))
    rng = random.Random(f'chainsmith-labels-2026-11-26-{repo}')
    chosen_b = {b for b in blame_b if rng.random() < p}
    sel = [dict(frm=r['from'], to=r['to'], stratum='text', p=1.0) for r in text]
    sel += [dict(frm=r['from'], to=r['to'], stratum='blame', p=round(p, 4)) for r in rows if r['scans'] == ['blame'] and r['from'] in chosen_b]
    os.makedirs(f'{out_root}/{repo}', exist_ok=True)
    with open(f'{out_root}/{repo}/selection.jsonl', 'w') as f:
        for s in sel: f.write(json.dumps({'from': s['frm'], 'to': s['to'], 'stratum': s['stratum'], 'p': s['p']}) + '\n')
    by_b = {}
    for s in sel: by_b.setdefault(s['frm'], set()).add(s['to'])
    for b, tos in by_b.items():
        src = open(f'{dossier_dir}/{repo}/B-{b}.md').read()
        parts = re.split(r'(?m)^(?=# Earlier PR #)', src)
        head, sections = parts[0], parts[1:]
        keep = [s for s in sections if int(re.match(r'# Earlier PR #(\d+)', s).group(1)) in tos]
        assert len(keep) == len(tos), (repo, b, tos)
        def cut(section):
            # texts and overlap lists: each subsection bounded, the diff already trimmed
            subs = re.split(r'(?m)^(?=## )', section)
            res = []
            for sub in subs:
                lim = 2500 if sub.startswith('## Texts') else 1500 if sub.startswith('## Lines') else None
                res.append(sub if lim is None or len(sub) <= lim else sub[:lim] + f'\n[trimmed {len(sub) - lim} bytes]\n\n')
            return ''.join(res)
        def trim(section, budget):
            m = re.search(r'(?m)^## Diff of .*\n', section)
            if not m: return section
            body = section[m.end():]
            if len(body) <= budget: return section
            return section[:m.end()] + body[:budget] + f'\n[trimmed {len(body) - budget} bytes]\n'
        a_budget = 3500 if len(keep) <= 4 else 1500
        doc = cut(trim(head, 9000)) + ''.join(cut(trim(s, a_budget)) for s in keep)
        open(f'{out_root}/{repo}/B-{b}.md', 'w').write(doc)
    sizes = [os.path.getsize(f'{out_root}/{repo}/B-{b}.md') for b in by_b]
    print(repo, 'p_blame', round(p, 3), 'pairs', len(sel), 'text', len(text), 'dossiers', len(by_b), 'bytes', sum(sizes))
