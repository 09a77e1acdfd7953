import type { ServerResponse } from 'node:http';
import { ResponseWriter } from '../serving/response-writer';
import type { Status } from './status';

/**
 * Answers with a Status body, through the response's writer: filters refuse a request the same way
 * routes do, and nothing is written once the request has timed out.
 */
export function writeStatus(res: ServerResponse, status: Status, headers: Record<string, string> = {}): void {
  ResponseWriter.of(res).status(status, headers);
}
