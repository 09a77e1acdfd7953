import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SchedulingQueue } from './queue/scheduling-queue';

/** A few of kube-scheduler's metrics, under their names. */
export class SchedulerMetrics {
  readonly attempts: Counter<'result' | 'profile'>;
  readonly attemptDuration: Histogram<'result' | 'profile'>;
  readonly bindings: Counter<'result'>;
  readonly preemptionAttempts: Counter;
  readonly preemptionVictims: Histogram;

  constructor(registry: Registry, queue: SchedulingQueue) {
    this.attempts = new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. unschedulable means a pod could not be scheduled, while error means an internal scheduler problem.',
      labelNames: ['result', 'profile'],
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
      labelNames: ['result', 'profile'],
      buckets: [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384],
      registers: [registry],
    });
    this.bindings = new Counter({
      name: 'scheduler_bindings_total',
      help: 'Number of bindings sent to the API server, by the result.',
      labelNames: ['result'],
      registers: [registry],
    });
    this.preemptionAttempts = new Counter({
      name: 'scheduler_preemption_attempts_total',
      help: 'Total preemption attempts in the cluster till now',
      registers: [registry],
    });
    this.preemptionVictims = new Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of selected preemption victims',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    });
    new Gauge({
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods.",
      labelNames: ['queue'],
      registers: [registry],
      collect() {
        const pending = queue.pending();
        this.set({ queue: 'active' }, pending.active);
        this.set({ queue: 'backoff' }, pending.backoff);
        this.set({ queue: 'unschedulable' }, pending.unschedulable);
      },
    });
  }
}
