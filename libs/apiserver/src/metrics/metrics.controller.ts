import { Controller, Get, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MetricsService } from './metrics.service';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  async scrape(@Res() res: ServerResponse): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    res.statusCode = 200;
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}
