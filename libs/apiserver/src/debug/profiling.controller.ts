import { Controller, Get, Inject, Req, Res, type OnModuleDestroy } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failureStatus, ProcessProfiler } from '@svc/machinery';
import type { ApiServerServingConfig } from '../config';
import { SERVING_CONFIG } from '../serving-core.module';
import { notFoundStatus } from '../status/status';
import { writeStatus } from '../status/write-status';

/**
 * `/debug/pprof/` while `--profiling` is on (its default, as in Kubernetes): CPU and heap profiles of
 * this process in pprof's format. Like every non-resource path it is authorized first (RBAC:
 * `nonResourceURLs: ["/debug/*"]`).
 */
@Controller()
export class ProfilingController implements OnModuleDestroy {
  private readonly profiler: ProcessProfiler | undefined;

  constructor(@Inject(SERVING_CONFIG) config: ApiServerServingConfig) {
    this.profiler = config.profiling ? new ProcessProfiler() : undefined;
  }

  @Get(['debug/pprof', 'debug/pprof/{*path}'])
  async profile(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    if (!this.profiler) return writeStatus(res, notFoundStatus());
    const url = new URL(req.url ?? '/', 'https://server');
    const answer = await this.profiler.answer(url.pathname, url.searchParams);
    if (answer.reason !== undefined) return writeStatus(res, failureStatus(answer.status, answer.reason, String(answer.body).trim()));
    res.statusCode = answer.status;
    res.setHeader('Content-Type', answer.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(answer.body);
  }

  onModuleDestroy(): void {
    this.profiler?.close();
  }
}
