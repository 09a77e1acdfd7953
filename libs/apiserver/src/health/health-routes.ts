import type { IncomingMessage } from 'node:http';
import { requestContext, requestUrl } from '../request/request-context';
import { decodeParam, type MuxRoute } from '../serving/mux';
import type { ResponseWriter } from '../serving/response-writer';
import { notFoundStatus } from '../status/status';
import { HEALTH_ENDPOINTS, type HealthEndpoint, type HealthReport } from './health-check';
import type { HealthRegistry } from './health-registry';

/** `/healthz`, `/livez`, `/readyz` and their per-check paths; any method, as Kubernetes' mux serves them. */
export function healthRoutes(registry: HealthRegistry): MuxRoute[] {
  return HEALTH_ENDPOINTS.flatMap((endpoint) => [
    { path: `/${endpoint}`, handler: (req, res) => report(registry, endpoint, req, res) },
    { path: `/${endpoint}/{check...}`, handler: (req, res, params) => reportOne(registry, endpoint, req, res, params.check) },
  ]);
}

async function report(registry: HealthRegistry, endpoint: HealthEndpoint, req: IncomingMessage, res: ResponseWriter): Promise<void> {
  const params = requestUrl(req).searchParams;
  writeHealthReport(res, await registry.report(endpoint, { verbose: params.has('verbose'), exclude: params.getAll('exclude') }));
}

async function reportOne(registry: HealthRegistry, endpoint: HealthEndpoint, req: IncomingMessage, res: ResponseWriter, check: string): Promise<void> {
  const report = await registry.reportOne(endpoint, decodeParam(check));
  if (!report) {
    // Arbitrary check names must not each become a metrics label value.
    requestContext(req).unmatched = true;
    return res.status(notFoundStatus());
  }
  writeHealthReport(res, report);
}

function writeHealthReport(res: ResponseWriter, report: HealthReport): void {
  res.end(report.status, report.body, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
}
