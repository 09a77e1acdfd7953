export * from './test-environment';
export * from './eventually';
