export * from './artifact';
export * from './chain';
export * from './judgement';
export * from './pull-request';
export * from './query';
export * from './sample';
export * from './stage';
export * from './trajectory';
