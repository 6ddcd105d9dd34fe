export * from '../../src/testing/fake-openai';
