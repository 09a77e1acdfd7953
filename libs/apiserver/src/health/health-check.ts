/** A named check; it passes by returning, fails by throwing (or rejecting) with the reason. */
export interface HealthCheck {
  readonly name: string;
  check(): void | Promise<void>;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export const HEALTH_ENDPOINTS: readonly HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

/** The text answer of a health endpoint: status 200 or 500 and a `text/plain` body. */
export interface HealthReport {
  status: 200 | 500;
  body: string;
}

export function healthCheck(name: string, check: () => void | Promise<void>): HealthCheck {
  return { name, check };
}
