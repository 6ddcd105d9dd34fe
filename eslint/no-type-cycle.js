// ESLint rule: no import circle closed by a type-only import. import-x/no-cycle skips type-only
// imports by design (they vanish at run time), yet a circle of them still ties two rooms of the house
// into one, and every circle this tree had was of that kind. So this rule reports a type-only import
// (`import type`, `export type … from`, `import('…').T`) whose module imports, by any imports at all,
// the file back; circles of value imports alone are import-x's to report.
const { readFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const ts = require('typescript');

/** A file's relative imports, read again only when the file changed (an editor lints for hours). */
const importsOf = new Map();
function imports(file) {
  const { mtimeMs } = statSync(file);
  const known = importsOf.get(file);
  if (known && known.mtimeMs === mtimeMs) return known.targets;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = importedFiles.map((f) => target(file, f.fileName)).filter((t) => t !== undefined);
  importsOf.set(file, { mtimeMs, targets });
  return targets;
}

/** The .ts file a relative specifier names, or undefined (a package, or a .json file). */
function target(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) =>
    statSync(candidate, { throwIfNoEntry: false })?.isFile(),
  );
}

/** The shortest path of imports from `start` to `goal`, or undefined where there is none. */
function pathBetween(start, goal) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift();
    if (at === goal) {
      const path = [];
      for (let step = at; step !== undefined; step = cameFrom.get(step)) path.unshift(step);
      return path;
    }
    for (const next of imports(at)) {
      if (!cameFrom.has(next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return undefined;
}

const typeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

module.exports = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid a circle of imports closed by a type-only import' },
    schema: [],
    messages: { cycle: 'import circle: {{path}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    const check = (node, source) => {
      const to = source && typeof source.value === 'string' ? target(file, source.value) : undefined;
      const back = to && pathBetween(to, file);
      if (back)
        context.report({
          node,
          messageId: 'cycle',
          data: { path: [file, ...back].map((f) => relative(context.cwd, f)).join(' → ') },
        });
    };
    return {
      ImportDeclaration: (node) => typeOnly(node) && check(node, node.source),
      ExportNamedDeclaration: (node) => typeOnly(node) && check(node, node.source),
      ExportAllDeclaration: (node) => node.exportKind === 'type' && check(node, node.source),
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal),
    };
  },
};
