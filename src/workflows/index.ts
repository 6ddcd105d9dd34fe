export { batchWorkflow } from './batch-workflow';
export { chainWorkflow } from './chain-workflow';
export { scheduledRunWorkflow } from './schedule-workflow';
