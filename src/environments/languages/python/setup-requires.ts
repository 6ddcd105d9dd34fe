/**
 * What a setuptools project asks to have before its setup.py runs (`setup_requires`: setuptools_scm or
 * pbr for its version, cffi, Cython, numpy's headers), read where projects write it: a literal list in
 * setup.py's call, or setup.cfg's `[options]`. setuptools fetches these itself as the build starts,
 * which an offline image cannot, and a PEP 517 `build-system.requires` would have listed them: they
 * are resolved with the build's requirements instead. A list setup.py computes is not read.
 */
export function setupRequires(setupPy: string, setupCfg: string): string[] {
  return setupList('setup_requires', setupPy, setupCfg);
}

/** What a setuptools project needs to run (`install_requires`), read as setupRequires reads its list. */
export function installRequires(setupPy: string, setupCfg: string): string[] {
  return setupList('install_requires', setupPy, setupCfg);
}

function setupList(key: string, setupPy: string, setupCfg: string): string[] {
  // The literals up to the list's close (an extra's brackets are inside a literal).
  const list = new RegExp(`\\b${key}\\s*=\\s*[[(]((?:\\s*(['"])[^'"\\n]*\\2\\s*,?)*)\\s*[\\])]`);
  const inPy = list.exec(setupPy)?.[1] ?? '';
  const fromPy = [...inPy.matchAll(/(['"])([^'"\n]+)\1/g)].map((m) => m[2].trim());
  return [...new Set([...fromPy, ...fromCfg(key, setupCfg)])].filter((r) => /^[A-Za-z0-9]/.test(r));
}

/** setup.cfg's `[options] KEY`, a list setuptools splits at semicolons and line ends (a comma belongs to a specifier). */
function fromCfg(key: string, setupCfg: string): string[] {
  const lines = setupCfg.split(/\r?\n/);
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const header = /^\s*\[([^\]]+)\]/.exec(lines[i]);
    if (header) section = header[1].trim();
    const found = section === 'options' ? new RegExp(`^${key}\\s*[=:]\\s*(.*)$`).exec(lines[i]) : null;
    if (!found) continue;
    const values = [found[1]];
    for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]); j++) values.push(lines[j]);
    return values
      .flatMap((v) => v.split(';'))
      .map((v) => v.replace(/\s+#.*$/, '').trim())
      .filter((v) => v && !v.startsWith('#'));
  }
  return [];
}
