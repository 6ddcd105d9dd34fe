export * from '../../src/testing/worker-process';
