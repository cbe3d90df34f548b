export * from './create-test-server';
