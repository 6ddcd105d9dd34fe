// Progress goes to stderr; keep the SDK's per-state INFO lines out of it (the benches' workers and
// the tests' share this one setting).
import '../test/support/quiet-sdk';
import { readdirSync } from 'node:fs';
import { printFigures, type Figure } from './figure';
import { endChildrenOnSignals } from '../src/process/end-on-signals';

/** `npm run bench -- NAME` runs bench/NAME.ts, whose `run()` measures and returns its figures. */
async function main(): Promise<void> {
  endChildrenOnSignals('bench');
  const available = readdirSync(__dirname)
    .filter((f) => /\.(js|ts)$/.test(f) && !/^(run|figure)\./.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.map'))
    .map((f) => f.replace(/\.(js|ts)$/, ''));
  const name = process.argv[2];
  if (!name || !available.includes(name)) {
    console.error(`usage: npm run bench -- NAME, where NAME is one of: ${available.join(', ') || '(none yet)'}`);
    process.exit(2);
  }
  const mod = (await import(`./${name}`)) as { run: () => Promise<Figure[]> };
  printFigures(name, await mod.run());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
