export { chainWorkflow } from './chain-workflow';
