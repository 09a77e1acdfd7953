import type { LoggerService } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import type { ApiServerServingConfig } from '../config';
import type { HealthRegistry } from '../health/health-registry';
import type { ServerLifecycle } from '../lifecycle/server-lifecycle';
import type { MetricsService } from '../metrics/metrics.service';
import type { MuxRoute } from './mux';

/** The objects the serving shell shares with the parts installed on it. */
export interface ServingCore {
  config: ApiServerServingConfig;
  health: HealthRegistry;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  logger: LoggerService;
  /** Where the server listens; known once it does (post-start hooks may ask). */
  address(): AddressInfo;
  /** Work to do as the server closes, before the onStopped hooks run (a controller to stop). */
  onClose(hook: () => void | Promise<void>): void;
}

/**
 * A part of the server installed on the serving shell before it listens: the routes it serves (added
 * to the one mux) and the hooks it registers on the core (health checks, post-start hooks, stop work).
 */
export type ServerPart = (core: ServingCore) => readonly MuxRoute[] | void;
