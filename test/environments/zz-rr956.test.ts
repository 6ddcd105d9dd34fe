import { validateReal as validate } from '../support/real-validation';
test('x', async () => {
  const t0 = Date.now();
  const { env, gold } = await validate('serde-rs+json', 'serde-rs/json', 956, 'master');
  console.log(JSON.stringify({ s: (Date.now() - t0) / 1000, tool: env.manifest.toolchain, res: env.manifest.resolution?.lock, status: gold.status, f2p: gold.failToPass, p2p: gold.passToPass.length, p2pl: gold.passToPass.slice(0, 5) }));
}, 30 * 60_000);
