import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { ApiServerServingConfig } from '../config';
import { SERVING_CONFIG } from '../serving-core.module';

@Controller()
export class VersionController {
  constructor(@Inject(SERVING_CONFIG) private readonly config: ApiServerServingConfig) {}

  @Get('version')
  version(@Res() res: ServerResponse): void {
    const body = JSON.stringify(this.config.version, null, 2);
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}
