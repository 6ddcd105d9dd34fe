import { validateStages } from '../src/judge/gold-yield';
import type { GoldTests } from '../src/schemas';
import { FakeOpenAI } from '../test/support/fake-openai';
import { testSetup } from '../test/support/setup-agent';
import { ciReadingModel, LAYOUTS, layoutChain, type Layout } from '../test/support/setup-layouts';
import type { Figure } from './figure';

/**
 * Recipes the scripted model needs per rescuable layout: two where the CI file's first line needs the
 * network (its failure must reach the model; for pip-packages the second recipe resolves the file on the
 * host instead), one where it installs nothing.
 */
const NEEDS: Record<Exclude<Layout, 'unrescuable'>, number> = {
  script: 2,
  make: 1,
  'subfolder-runner': 2,
  'pip-packages': 2,
};
const needed = Object.values(NEEDS);

const say = (line: string) => console.error(`[setup-agent] ${line}`);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Stages a recipe of the agent's set up: proposed now, or saved for an earlier stage and reused. */
const rescued = (g: GoldTests) =>
  g.status === 'verified' && (g.setup?.outcome === 'rescued' || g.setup?.outcome === 'saved-recipe');

/**
 * The setup agent on generated repositories in layouts no detector knows (test/support/setup-layouts.ts:
 * a project script, a makefile under a folder, a runner in a subfolder, a script needing a registry
 * package, and one needing a tool no image has), two stages each, with a scripted model that proposes what the CI file it reads says. Each
 * layout's repository is new (its name carries the process id), so no saved recipe or gold record of
 * an earlier run serves; environment images of the same content are reused.
 */
export async function run(): Promise<Figure[]> {
  const model = new FakeOpenAI(ciReadingModel());
  const baseUrl = await model.start();
  const records: Array<{ layout: Layout; gold: GoldTests }> = [];
  try {
    const setup = await testSetup({ baseUrl, lines: [] });
    for (const layout of LAYOUTS) {
      const chain = await layoutChain(layout, `bench-${process.pid}`);
      const golds = await validateStages(setup.gold, [chain], undefined, {
        goldTests: (c, s) => setup.agent.goldTests(c, s),
      });
      for (const gold of golds) {
        records.push({ layout, gold });
        say(
          `${layout} PR #${gold.prNumber}: ${gold.status}, setup ${gold.setup?.outcome ?? 'not asked'} (${gold.setup?.attempts ?? 0} attempts, ${(gold.setup?.promptTokens ?? 0) + (gold.setup?.completionTokens ?? 0)} tokens)`,
        );
      }
    }
  } finally {
    await model.stop();
  }
  const now = records
    .filter(({ gold }) => gold.status === 'verified' && gold.setup?.outcome === 'rescued')
    .map(({ gold }) => gold.setup!);
  const saved = records.filter(
    ({ gold }) => gold.status === 'verified' && gold.setup?.outcome === 'saved-recipe',
  ).length;
  const rescuable = records.filter(({ layout }) => layout !== 'unrescuable').length;
  const falseRescues = records.filter(({ layout, gold }) => layout === 'unrescuable' && rescued(gold)).length;
  const unrescuable = records.filter(({ layout }) => layout === 'unrescuable').map(({ gold }) => gold.setup);
  const per = (total: number) => (now.length ? round(total / now.length, 2) : 0);
  return [
    {
      measure: 'setup_rescued_stages',
      value: records.filter(({ gold }) => rescued(gold)).length,
      unit: 'stages',
      goal: `= ${rescuable} (the ${rescuable} stages of ${LAYOUTS.length - 1} rescuable layouts; ${now.length} by a recipe proposed now, ${saved} by one saved for the chain's earlier stage, with no model call)`,
    },
    {
      measure: 'setup_attempts_per_rescued_stage',
      value: per(now.reduce((n, s) => n + s.attempts, 0)),
      unit: 'recipes',
      // More means a failing command did not reach the model, less that a failing recipe was accepted.
      goal: `= ${round(needed.reduce((a, b) => a + b, 0) / needed.length, 2)} (stages rescued by a recipe proposed now; this scripted model needs ${Object.entries(
        NEEDS,
      )
        .map(([layout, n]) => `${n} for ${layout}`)
        .join(', ')})`,
    },
    {
      measure: 'setup_tokens_per_rescued_stage',
      value: per(now.reduce((n, s) => n + s.promptTokens + s.completionTokens, 0)),
      unit: 'tokens',
      goal: 'report (prompt and completion tokens the endpoint reported, over the stages rescued by a recipe proposed now; the fake endpoint counts a prompt as its JSON length / 4)',
    },
    {
      measure: 'setup_false_rescues',
      value: falseRescues,
      unit: 'stages',
      goal: `= 0 (stages of the layout no image can run counted as rescued; there, ${unrescuable.map((s) => `${s?.outcome ?? 'not asked'} after ${s?.attempts ?? 0} attempts`).join(', ')})`,
    },
  ];
}
