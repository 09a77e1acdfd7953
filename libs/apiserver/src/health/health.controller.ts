import { All, Controller, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext, requestUrl } from '../request/request-context';
import { notFoundStatus } from '../status/status';
import { respondWithStatus } from '../status/status-exception.filter';
import type { HealthEndpoint, HealthReport } from './health-check';
import { HealthRegistry } from './health-registry';

/** `/healthz`, `/livez`, `/readyz` and their per-check paths; any method, as Kubernetes' mux serves them. */
@Controller()
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @All(['healthz', 'livez', 'readyz'])
  async root(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    const endpoint = url.pathname.replace(/^\/+|\/+$/g, '') as HealthEndpoint;
    const report = await this.registry.report(endpoint, {
      verbose: url.searchParams.has('verbose'),
      exclude: url.searchParams.getAll('exclude'),
    });
    writeHealthReport(res, report);
  }

  @All(['healthz/*check', 'livez/*check', 'readyz/*check'])
  async single(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    const [endpoint, ...rest] = url.pathname.replace(/^\/+/, '').split('/');
    const report = await this.registry.reportOne(endpoint as HealthEndpoint, decodeURIComponent(rest.join('/')));
    if (!report) {
      // Arbitrary check names must not each become a metrics label value.
      requestContext(req).unmatched = true;
      return respondWithStatus(res, notFoundStatus());
    }
    writeHealthReport(res, report);
  }
}

function writeHealthReport(res: ServerResponse, report: HealthReport): void {
  res.statusCode = report.status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(report.body));
  res.end(report.body);
}
