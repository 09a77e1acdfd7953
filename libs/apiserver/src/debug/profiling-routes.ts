import { failureStatus, type ProcessProfiler } from '@svc/machinery';
import { requestUrl } from '../request/request-context';
import type { MuxRoute, RouteHandler } from '../serving/mux';

/**
 * `/debug/pprof/` while `--profiling` is on (its default, as in Kubernetes): CPU and heap profiles of
 * this process in pprof's format. Like every non-resource path it is authorized first (RBAC:
 * `nonResourceURLs: ["/debug/*"]`). The profiler is closed when the server stops.
 */
export function profilingRoutes(profiler: ProcessProfiler | undefined): MuxRoute[] {
  if (profiler === undefined) return [];
  const handler: RouteHandler = async (req, res) => {
    const url = requestUrl(req);
    const answer = await profiler.answer(url.pathname, url.searchParams);
    if (answer.reason !== undefined) return res.status(failureStatus(answer.status, answer.reason, String(answer.body).trim()));
    res.end(answer.status, answer.body, { 'Content-Type': answer.contentType, 'X-Content-Type-Options': 'nosniff' });
  };
  return ['/debug/pprof', '/debug/pprof/', '/debug/pprof/{profile...}'].map((path) => ({ path, methods: ['GET'], handler }));
}
