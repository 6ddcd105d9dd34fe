export * from '../../src/testing/ports';
