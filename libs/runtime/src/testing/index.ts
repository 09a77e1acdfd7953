export * from './eventually';
export * from './pod-readiness-simulator';
export * from './running-pod-status';
export * from './simulated-nodes';
