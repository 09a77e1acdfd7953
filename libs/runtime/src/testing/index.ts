export * from './eventually';
export * from './pod-readiness-simulator';
// Simulated nodes live in the runtime proper (the node simulator's image has no testing kit) and are offered here too.
export * from '../simulation/running-pod-status';
export * from '../simulation/simulated-nodes';
