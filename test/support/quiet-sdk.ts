import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every state change at INFO; the suite's output should show test results, not that.
Runtime.install({ logger: new DefaultLogger('WARN') });
