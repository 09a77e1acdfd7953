import type { RefusedFlag } from './refused-flags';

const YET = (what: string): string => `is not supported by this process yet: ${what}`;

/**
 * Serving, logging and metrics flags of the shared tables (spec 2) whose effect no process here has
 * (API server, controller manager, scheduler): each refuses a value other than the default.
 */
export const UNSUPPORTED_SHARED_FLAGS: readonly RefusedFlag[] = [
  { flag: 'permit-address-sharing', reason: YET('the secure port is bound without SO_REUSEADDR') },
  { flag: 'permit-port-sharing', reason: YET('the secure port is bound without SO_REUSEPORT') },
  { flag: 'http2-max-streams-per-connection', reason: YET('the secure port serves HTTP/1.1') },
  { flag: 'tls-sni-cert-key', reason: YET('the secure port serves one certificate') },
  { flag: 'contention-profiling', reason: '/debug/pprof/ serves CPU and heap profiles; Node keeps no lock contention profile' },
  { flag: 'vmodule', reason: YET('verbosity is set for the whole process with --v') },
  { flag: 'allow-metric-labels', reason: YET('metric labels are not filtered') },
  { flag: 'disabled-metrics', reason: YET('metrics cannot be disabled') },
  { flag: 'show-hidden-metrics-for-version', reason: YET('no metric is hidden') },
];
