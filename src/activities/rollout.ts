import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import { GoldReplayPolicy } from '../agent/gold-policy';
import { ModelPolicy } from '../agent/model-policy';
import { ConfigError } from '../errors';
import { runRound, type RoundInput, type RoundProgress } from '../rollout/round';
import { clusterOf } from '../container/docker-container';
import type { PolicyKind } from '../schemas';
import type { ActivityContext } from './context';
import { guard } from './guard';

export function rolloutActivities(ctx: ActivityContext) {
  const { config, host, redactor } = ctx;
  const price = config.budget.prices[config.model.name];
  return {
    /** One round of one stage in a sandbox on this host; a retry resumes from the last saved step. */
    async rolloutRound(input: RoundInput & { policy: PolicyKind }) {
      // The last attempt's heartbeat names the hosts that ran this round before; a worker that died there
      // left its sandbox behind, and the chain's cleanup must go there too.
      const previous = activityInfo().heartbeatDetails as Partial<RoundProgress> | undefined;
      const earlierHosts = [
        ...new Set([...(previous?.earlierHosts ?? []), ...(previous?.host ? [previous.host] : [])]),
      ].filter((h) => h !== host);
      let last: RoundProgress = {
        stage: input.stage,
        round: input.round,
        step: previous?.step ?? 0,
        promptTokens: previous?.promptTokens ?? 0,
        completionTokens: previous?.completionTokens ?? 0,
        host,
        earlierHosts,
      };
      // Heartbeat on a timer (guard) as well as per step: a model call or a test run can outlast the
      // heartbeat timeout, and a heartbeat is also how a pause or cancel reaches this activity. The timer
      // repeats the last step's details, which the next attempt resumes from.
      return guard(
        () =>
          runRound(input, {
            docker: ctx.docker,
            store: ctx.store,
            sandbox: ctx.sandboxSpec,
            pool: ctx.pool,
            environments: ctx.environments,
            limits: { ...config.agent, ...config.budget, price },
            redactor,
            host,
            cluster: clusterOf(config.temporal),
            heartbeat: (details) => heartbeat((last = details)),
            earlierHosts,
            signal: cancellationSignal(),
            policyFor: (chain, stage, testCommand) => {
              if (input.policy === 'gold-replay') return new GoldReplayPolicy(chain.prs[stage], testCommand);
              if (!ctx.model)
                throw new ConfigError(
                  'this chain runs a model policy but the worker has no model endpoint (set OPENAI_BASE_URL)',
                );
              if (config.budget.maxCostUsd !== undefined && !price) {
                throw new ConfigError(
                  `budget.maxCostUsd is set but budget.prices has no price for the model ${config.model.name}`,
                );
              }
              return new ModelPolicy(ctx.model, config.model.name, redactor);
            },
          }),
        () => heartbeat(last),
      );
    },
  };
}
