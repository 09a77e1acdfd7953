export * from './testing/test-environment';
