import { Controller, Get, Header } from '@nestjs/common';

/**
 * Liveness and readiness of the process. The reconcilers and their health checks arrive with the
 * framework's manager; until then the process is healthy once it serves.
 */
@Controller()
export class HealthController {
  @Get(['healthz', 'livez', 'readyz'])
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('X-Content-Type-Options', 'nosniff')
  ok(): string {
    return 'ok';
  }
}
