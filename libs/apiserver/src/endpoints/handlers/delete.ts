import type { Status } from '@svc/machinery';
import { decodeObjectBody } from '../../decoding/body-decoder';
import { readBody } from '../../request/read-body';
import { parseDeleteOptions, type ParsedDelete } from '../query-options';
import { callerOf, shownIn, type ResourceRequest } from '../request-scope';
import { writeBody } from '../responses/write-body';

/**
 * DELETE of one object: DeleteOptions from the body, else the query. 202 when it waits for its
 * dependents' owner references to be removed (orphanDependents=false). Kubernetes'
 * ReturnDeletedObject: some kinds answer with the removed object, the others with a Success Status;
 * an object left Terminating is answered as it is.
 */
export async function serveDelete(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  const { request: options, dryRun } = await deleteOptionsOf(request);
  const result = await scope.registry.delete(scope.namespace, scope.name, options, { dryRun, ...callerOf(request.req) });
  const code = !result.removed && options.orphanDependents === false ? 202 : 200;
  if (!result.removed || scope.def.strategy.returnDeletedObject === true) {
    writeBody(request.res, code, shownIn(scope, result.object), request.format);
    return;
  }
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: scope.name, group: scope.def.group || undefined, kind: scope.def.resource, uid: result.object.metadata?.uid },
  };
  writeBody(request.res, code, status, request.format);
}

/** The DeleteOptions of a delete: from its body when there is one (JSON, YAML or protobuf), else from the query. */
export async function deleteOptionsOf(request: ResourceRequest): Promise<ParsedDelete> {
  const { req } = request;
  const body = await readBody(req, request.deps.maxRequestBodyBytes);
  const decoded = body.length > 0 && body.toString('utf8').trim() !== '' ? (await decodeObjectBody(body, req.headers['content-type'])).value : undefined;
  return parseDeleteOptions(decoded, request.params);
}
