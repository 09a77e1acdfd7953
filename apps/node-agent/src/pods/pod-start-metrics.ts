import { Counter, Histogram } from 'prom-client';

/** The steps of a pod's first start, in the order the worker takes them. */
export type PodStartStep = 'sandbox' | 'image' | 'container_create' | 'container_start' | 'status_write';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 45, 60];

/**
 * Where a pod's start-up time goes, as the kubelet's metrics of the same names show it: each runtime
 * call by operation, each step of the first start of a pod, and the whole from the agent first seeing
 * the pod to its Running status written. Registered in `/metrics` by the agent's server.
 */
export class PodStartMetrics {
  readonly runtimeOperations = new Histogram({
    name: 'nodeagent_runtime_operations_duration_seconds',
    help: 'Duration of CRI calls by operation',
    labelNames: ['operation_type'],
    buckets: BUCKETS,
    registers: [],
  });
  readonly runtimeErrors = new Counter({
    name: 'nodeagent_runtime_operations_errors_total',
    help: 'Failed CRI calls by operation',
    labelNames: ['operation_type'],
    registers: [],
  });
  readonly steps = new Histogram({
    name: 'nodeagent_pod_start_step_duration_seconds',
    help: 'Duration of each step of the first start of a pod',
    labelNames: ['step'],
    buckets: BUCKETS,
    registers: [],
  });
  readonly podStart = new Histogram({
    name: 'nodeagent_pod_start_duration_seconds',
    help: 'Duration from the agent first seeing a pod to its Running status written',
    buckets: BUCKETS,
    registers: [],
  });
  readonly syncs = new Counter({ name: 'nodeagent_pod_syncs_total', help: 'Pod worker syncs', registers: [] });

  runtimeCall(method: string, seconds: number, failed: boolean): void {
    this.runtimeOperations.observe({ operation_type: method }, seconds);
    if (failed) this.runtimeErrors.inc({ operation_type: method });
  }

  /** Times a step of a pod's first start; later syncs (restarts) are not start-up. */
  async step<T>(firstStart: boolean, step: PodStartStep, work: () => Promise<T>): Promise<T> {
    if (!firstStart) return work();
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.steps.observe({ step }, (performance.now() - started) / 1000);
    }
  }

  all(): Array<Histogram | Counter> {
    return [this.runtimeOperations, this.runtimeErrors, this.steps, this.podStart, this.syncs];
  }
}
