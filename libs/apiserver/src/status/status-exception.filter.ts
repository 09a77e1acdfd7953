import { errorMessage } from '@svc/machinery';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger, type LoggerService, NotFoundException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isTimedOutResponse } from '../filters/handler-chain';
import { requestContext } from '../request/request-context';
import { internalErrorStatus, isStatus, notFoundStatus, type Status, StatusError, statusForCode } from './status';
import { writeStatus } from './write-status';

/**
 * Turns every error that leaves a handler, and every unmatched route, into a Status body. Nothing else
 * reaches the client: no stack trace, no HTML.
 */
@Catch()
export class StatusExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: LoggerService = new Logger('ApiServer')) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingMessage & { originalUrl?: string }>();
    const res = http.getResponse<ServerResponse>();
    if (isTimedOutResponse(res)) return;
    const status = this.toStatus(exception, req);
    respondWithStatus(res, status);
  }

  private toStatus(exception: unknown, req: IncomingMessage & { originalUrl?: string }): Status {
    if (exception instanceof StatusError) return exception.status;
    const carried = (exception as { status?: unknown } | null)?.status;
    if (isStatus(carried)) return carried;
    if (isStatus(exception)) return exception;
    if (exception instanceof NotFoundException && isRouteNotFound(exception, req)) {
      requestContext(req).unmatched = true;
      return notFoundStatus();
    }
    if (exception instanceof HttpException) {
      const code = exception.getStatus();
      if (code >= 500) this.logger.error(`${req.method} ${req.url}: ${exception.message}`, exception.stack);
      return statusForCode(code, exception.message);
    }
    const code = httpErrorCode(exception);
    if (code !== undefined && code < 500) return statusForCode(code, (exception as Error).message);
    const message = errorMessage(exception);
    requestContext(req).panicked = true;
    this.logger.error(`${req.method} ${req.url}: ${message}`, exception instanceof Error ? exception.stack : undefined);
    return internalErrorStatus(message);
  }
}

/** Writes a Status response, closing the connection when the request body may be left unread. */
export function respondWithStatus(res: ServerResponse, status: Status): void {
  writeStatus(res, status, status.code === 413 ? { Connection: 'close' } : {});
}

// Nest answers unmatched routes by throwing NotFoundException(`Cannot <METHOD> <url>`) through the filters.
function isRouteNotFound(exception: NotFoundException, req: IncomingMessage & { originalUrl?: string }): boolean {
  return exception.message === `Cannot ${req.method} ${req.originalUrl ?? req.url}`;
}

// Errors from Express and its helpers (http-errors) carry their HTTP code as status or statusCode.
function httpErrorCode(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const candidate = (exception as { statusCode?: unknown; status?: unknown }).statusCode ?? (exception as { status?: unknown }).status;
  return typeof candidate === 'number' && candidate >= 400 && candidate < 600 ? candidate : undefined;
}
