import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requirementName } from './pyproject';

const SDIST = /^(.+)-([^-]+)\.(tar\.gz|zip|tar\.bz2)$/;

/**
 * requirements.txt's pins spelt as the dependency directory's sdists spell their names
 * (`zope-interface==4.3.3` → `zope.interface==4.3.3` beside `zope.interface-4.3.3.tar.gz`). The resolver
 * writes names normalised; pip before 19 (the one a Python 3.7 or older venv starts with) matches an
 * sdist by its file's name as spelt, and finds "no version" of a dotted or underscored one. Wheels'
 * names are compared normalised by every pip, and a name spelt either way is the same distribution.
 */
export async function spellAsSdists(depsDir: string): Promise<void> {
  const file = join(depsDir, 'requirements.txt');
  const spelt = new Map<string, string>();
  for (const f of await readdir(depsDir)) {
    const m = SDIST.exec(f);
    if (m) spelt.set(`${requirementName(m[1])}==${m[2]}`, m[1]);
  }
  if (!spelt.size) return;
  const lines = (await readFile(file, 'utf8')).split('\n').map((line) => {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)((?:\[[^\]]*\])?==([^\s;]+).*)$/.exec(line);
    const name = m && spelt.get(`${requirementName(m[1])}==${m[3]}`);
    return name ? `${name}${m[2]}` : line;
  });
  await writeFile(file, lines.join('\n'));
}
