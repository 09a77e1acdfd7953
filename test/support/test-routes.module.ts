import { Controller, Get, Module, Post, Query, Req } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { failureStatus, readBody, requestContext, StatusError } from '@svc/apiserver';

/** Routes standing in for the resource handlers later work adds: a slow handler, failing handlers and a body reader. */
@Controller('test')
class TestRoutesController {
  @Get('slow')
  async slow(@Req() req: IncomingMessage, @Query('ms') ms: string): Promise<{ sleptMs: number }> {
    const wanted = Number(ms ?? 0);
    const signal = requestContext(req).signal;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wanted);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { sleptMs: wanted };
  }

  @Get('fail')
  fail(): never {
    throw new Error('the handler fell over');
  }

  @Get('conflict')
  conflict(): never {
    throw new StatusError(failureStatus(409, 'Conflict', 'Operation cannot be fulfilled: the object has been modified'));
  }

  @Post('echo')
  async echo(@Req() req: IncomingMessage): Promise<{ bytes: number }> {
    const body = await readBody(req);
    return { bytes: body.length };
  }
}

@Module({ controllers: [TestRoutesController] })
export class TestRoutesModule {}
