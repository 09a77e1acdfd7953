export * from './eventually';
export * from './pod-readiness-simulator';
