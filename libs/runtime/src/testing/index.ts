export * from './test-environment';
export * from './eventually';
export * from './pod-readiness-simulator';
