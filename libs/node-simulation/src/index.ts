export { SimulatedNodes, type SimulatedNodeSpec, type SimulatedNodesOptions } from './simulated-nodes';
export { runningPodStatus, showsRunning, type RunningPodStatusOptions } from './running-pod-status';
export { PodReadinessSimulator, type PodReadinessSimulatorOptions } from './pod-readiness-simulator';
