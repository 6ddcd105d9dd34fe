import { SETUP_AGENT_ATTEMPTS, SETUP_AGENT_STEPS, setupAgentWorstRequests } from '../../src/retry-budget';
import { FakeOpenAI } from '../support/fake-openai';
import { testSetup } from '../support/setup-agent';
import { layoutChain, proposal } from '../support/setup-layouts';

/** Tries per model request of the client testSetup builds (as `validate` builds it from model.retries). */
const TRIES = 2;

/**
 * The worst case src/retry-budget.ts states for the setup agent on one stage, counted through the real
 * client against the scripted endpoint: every request fails once (a 500) and succeeds on the client's
 * second try, and every recipe reads to its last step before it is proposed, wrong each time (a test
 * command that does not exist), the default number of recipes.
 */
test(`the setup agent makes at most ${setupAgentWorstRequests(SETUP_AGENT_ATTEMPTS, TRIES)} model requests for a stage with ${TRIES} tries each, as the retry budget says`, async () => {
  const chain = await layoutChain('script', `budget-${process.pid}`);
  const tried = new Set<string>();
  const fake = new FakeOpenAI((_req, marker) => {
    if (marker?.caller !== 'setup-agent') throw new Error(`unexpected caller ${marker?.caller}`);
    const key = `${marker.round}/${marker.step}`;
    if (!tried.has(key)) {
      tried.add(key);
      throw new Error('the endpoint is overloaded');
    }
    if ((marker.step ?? 0) < SETUP_AGENT_STEPS - 1)
      return { toolCalls: [{ name: 'read_file', args: { path: 'README.md', start_line: 1 } }] };
    return proposal({
      toolchain: 'python',
      language: 'unknown',
      manifests: [],
      setup: [],
      test: `sh scripts/no-such-runner-${marker.round}`,
      runner: 'exit-code',
    });
  });
  try {
    const setup = await testSetup({ baseUrl: await fake.start() });
    expect(setup.config.environments.setupAttempts).toBeUndefined();
    const gold = await setup.agent.goldTests(chain, 0);
    expect(gold.setup).toMatchObject({
      outcome: 'failed',
      attempts: SETUP_AGENT_ATTEMPTS,
      // Answered requests; the endpoint saw each of them fail once before.
      requests: SETUP_AGENT_ATTEMPTS * SETUP_AGENT_STEPS,
    });
    expect(fake.requestsBy('setup-agent')).toHaveLength(setupAgentWorstRequests(SETUP_AGENT_ATTEMPTS, TRIES));
    expect(fake.requests.filter((r) => r.marker?.step === SETUP_AGENT_STEPS - 1)).toHaveLength(
      SETUP_AGENT_ATTEMPTS * TRIES,
    );
  } finally {
    await fake.stop();
  }
}, 300_000);
