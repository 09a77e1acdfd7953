import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const exponential = (start: number, factor: number, count: number) => Array.from({ length: count }, (_, i) => start * factor ** i);
const linear = (start: number, width: number, count: number) => Array.from({ length: count }, (_, i) => start + width * i);

/**
 * kube-proxy's metrics under their names (subsystem `kubeproxy`), so that dashboards and alerts
 * written for it read this proxy; `svc_proxy_rules` counts what the last sync left programmed.
 */
export class ProxyMetrics {
  readonly registry = new Registry();
  readonly syncDuration: Histogram;
  readonly syncFullDuration: Histogram;
  readonly syncPartialDuration: Histogram;
  readonly lastSync: Gauge;
  readonly lastQueued: Gauge;
  readonly networkProgramming: Histogram;
  readonly endpointChangesPending: Gauge;
  readonly endpointChangesTotal: Counter;
  readonly serviceChangesPending: Gauge;
  readonly serviceChangesTotal: Counter;
  readonly noLocalEndpoints: Gauge<'traffic_policy'>;
  readonly nftablesSyncFailures: Counter;
  readonly nftablesCleanupFailures: Counter;
  readonly iptablesRestoreFailures: Counter;
  readonly iptablesRules: Gauge<'table'>;
  readonly iptablesRulesLast: Gauge<'table'>;
  readonly rules: Gauge<'family' | 'kind'>;
  readonly healthz: Counter<'code'>;
  readonly livez: Counter<'code'>;

  constructor() {
    const r = [this.registry];
    this.syncDuration = new Histogram({
      name: 'kubeproxy_sync_proxy_rules_duration_seconds',
      help: 'SyncProxyRules latency in seconds',
      buckets: exponential(0.001, 2, 15),
      registers: r,
    });
    this.syncFullDuration = new Histogram({
      name: 'kubeproxy_sync_full_proxy_rules_duration_seconds',
      help: 'SyncProxyRules latency in seconds for full resyncs',
      buckets: exponential(0.001, 2, 15),
      registers: r,
    });
    this.syncPartialDuration = new Histogram({
      name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds',
      help: 'SyncProxyRules latency in seconds for partial resyncs',
      buckets: exponential(0.001, 2, 15),
      registers: r,
    });
    this.lastSync = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
      help: 'The last time proxy rules were successfully synced',
      registers: r,
    });
    this.lastQueued = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds',
      help: 'The last time a sync of proxy rules was queued',
      registers: r,
    });
    this.networkProgramming = new Histogram({
      name: 'kubeproxy_network_programming_duration_seconds',
      help: 'In Cluster Network Programming Latency in seconds',
      buckets: [0, ...linear(0.25, 0.25, 2), ...linear(1, 1, 59), ...linear(60, 5, 12), ...linear(120, 30, 7)],
      registers: r,
    });
    this.endpointChangesPending = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_endpoint_changes_pending',
      help: 'Pending proxy rules Endpoint changes',
      registers: r,
    });
    this.endpointChangesTotal = new Counter({
      name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total',
      help: 'Cumulative proxy rules Endpoint changes',
      registers: r,
    });
    this.serviceChangesPending = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_service_changes_pending',
      help: 'Pending proxy rules Service changes',
      registers: r,
    });
    this.serviceChangesTotal = new Counter({
      name: 'kubeproxy_sync_proxy_rules_service_changes_total',
      help: 'Cumulative proxy rules Service changes',
      registers: r,
    });
    this.noLocalEndpoints = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
      help: 'Number of services with a Local traffic policy and no endpoints',
      labelNames: ['traffic_policy'],
      registers: r,
    });
    this.nftablesSyncFailures = new Counter({
      name: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
      help: 'Cumulative proxy nftables sync failures',
      registers: r,
    });
    this.nftablesCleanupFailures = new Counter({
      name: 'kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total',
      help: 'Cumulative proxy nftables cleanup failures',
      registers: r,
    });
    this.iptablesRestoreFailures = new Counter({
      name: 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
      help: 'Cumulative proxy iptables restore failures',
      registers: r,
    });
    this.iptablesRules = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_iptables_total',
      help: 'Total number of iptables rules owned by kube-proxy',
      labelNames: ['table'],
      registers: r,
    });
    this.iptablesRulesLast = new Gauge({
      name: 'kubeproxy_sync_proxy_rules_iptables_last',
      help: 'Number of iptables rules written by kube-proxy in last sync',
      labelNames: ['table'],
      registers: r,
    });
    this.rules = new Gauge({
      name: 'svc_proxy_rules',
      help: 'What the last successful sync left programmed, by IP family and kind (chains, rules, sets, maps, elements)',
      labelNames: ['family', 'kind'],
      registers: r,
    });
    this.healthz = new Counter({
      name: 'kubeproxy_proxy_healthz_total',
      help: 'Cumulative proxy healthz HTTP status',
      labelNames: ['code'],
      registers: r,
    });
    this.livez = new Counter({
      name: 'kubeproxy_proxy_livez_total',
      help: 'Cumulative proxy livez HTTP status',
      labelNames: ['code'],
      registers: r,
    });
    collectDefaultMetrics({ register: this.registry });
  }
}
