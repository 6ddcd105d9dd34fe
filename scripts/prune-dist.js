// Before an incremental build: removes what dist/ holds for a source file that no longer exists. tsc
// never deletes its old outputs, and a stale dist/x.js beside a new folder dist/x/ wins `require('./x')`
// (a file before a directory), so a moved module would load its old self.
const { existsSync, readdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const OUTPUT = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (OUTPUT.test(entry.name)) {
      const source = join(root, path.slice(dist.length + 1).replace(OUTPUT, ''));
      if (!existsSync(`${source}.ts`) && !existsSync(`${source}.js`) && !existsSync(`${source}.json`)) rmSync(path);
    }
  }
}

if (existsSync(dist)) prune(dist);
