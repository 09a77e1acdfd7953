import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** controller-runtime's metric names. */
export const CONTROLLER_METRIC_NAMES = {
  reconcileTotal: 'controller_runtime_reconcile_total',
  reconcileErrors: 'controller_runtime_reconcile_errors_total',
  terminalReconcileErrors: 'controller_runtime_terminal_reconcile_errors_total',
  reconcileTime: 'controller_runtime_reconcile_time_seconds',
  maxConcurrentReconciles: 'controller_runtime_max_concurrent_reconciles',
  activeWorkers: 'controller_runtime_active_workers',
} as const;

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** One set of families per registry, shared by every controller on it (label `controller`). */
export class ControllerMetrics {
  private static readonly byRegistry = new WeakMap<Registry, ControllerMetrics>();
  readonly total: Counter<'controller' | 'result'>;
  readonly errors: Counter<'controller'>;
  readonly terminalErrors: Counter<'controller'>;
  readonly time: Histogram<'controller'>;
  readonly maxConcurrent: Gauge<'controller'>;
  readonly active: Gauge<'controller'>;

  private constructor(registry: Registry) {
    const registers = [registry];
    this.total = new Counter({
      name: CONTROLLER_METRIC_NAMES.reconcileTotal,
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.errors = new Counter({
      name: CONTROLLER_METRIC_NAMES.reconcileErrors,
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: CONTROLLER_METRIC_NAMES.terminalReconcileErrors,
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.time = new Histogram({
      name: CONTROLLER_METRIC_NAMES.reconcileTime,
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8,
        9, 10, 15, 20, 25, 30, 40, 50, 60,
      ],
      registers,
    });
    this.maxConcurrent = new Gauge({
      name: CONTROLLER_METRIC_NAMES.maxConcurrentReconciles,
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.active = new Gauge({
      name: CONTROLLER_METRIC_NAMES.activeWorkers,
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
  }

  static of(registry: Registry): ControllerMetrics {
    let metrics = ControllerMetrics.byRegistry.get(registry);
    if (!metrics) {
      metrics = new ControllerMetrics(registry);
      ControllerMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  /** Series at zero from the start, so an idle controller is told from a missing one. */
  register(controller: string, concurrency: number): void {
    for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) this.total.inc({ controller, result }, 0);
    this.errors.inc({ controller }, 0);
    this.terminalErrors.inc({ controller }, 0);
    this.maxConcurrent.set({ controller }, concurrency);
    this.active.set({ controller }, 0);
  }
}
