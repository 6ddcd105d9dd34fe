export * from '../../src/testing/engines';
