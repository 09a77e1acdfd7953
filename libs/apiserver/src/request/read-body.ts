import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../config';
import { existingRequestContext } from './request-context';
import { badRequestStatus, requestEntityTooLargeStatus, StatusError } from '../status/status';

interface RawBodyError extends Error {
  type?: string;
}

/**
 * Reads a request body whole, refusing with 413 before reading when Content-Length is already too large
 * and stopping at the limit when the body is chunked, so no body larger than the limit is ever buffered.
 * Rejects with a StatusError; the exception filter turns it into the response.
 */
export async function readBody(req: IncomingMessage, limitBytes: number = DEFAULT_MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) {
    throw new StatusError(requestEntityTooLargeStatus(limitBytes));
  }
  try {
    const body = await getRawBody(req, { limit: limitBytes, length: declared });
    existingRequestContext(req)?.audit?.recordRequestBody(body, req.headers['content-type']);
    return body;
  } catch (error) {
    const type = (error as RawBodyError).type;
    if (type === 'entity.too.large') throw new StatusError(requestEntityTooLargeStatus(limitBytes));
    if (type === 'request.aborted') throw new StatusError(badRequestStatus('the request body was cut short by the client'));
    if (type === 'request.size.invalid') throw new StatusError(badRequestStatus('the request body length does not match Content-Length'));
    if (type === 'stream.not.readable') throw new StatusError(badRequestStatus('the request body was already read'));
    throw error;
  }
}
