import type { Status } from '@svc/machinery';
import { writeBody } from '../responses/write-body';
import { objectInputOf, shownIn, writeOptionsOf, type ResourceRequest } from '../request-scope';

/** POST of a new object: CreateOptions from the query, the body as an object; 201 with the object made. */
export async function serveCreate(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  const options = writeOptionsOf(request, 'CreateOptions');
  const result = await scope.registry.create(scope.namespace, await objectInputOf(request), options);
  writeBody(request.res, 201, shownIn(scope, result.object), request.format, result.warnings);
}

/**
 * POST of a subresource whose body is another kind's object (a pod's binding or eviction), which
 * the kind's REST of it carries out. Kubernetes answers such a create with a Success Status, not the
 * object it changed.
 */
export async function serveCreateSubresource(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  const options = writeOptionsOf(request, 'CreateOptions');
  const result = await scope.registry.createSubresource(scope.namespace, scope.name, scope.subresource, await objectInputOf(request), options);
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  writeBody(request.res, 201, status, request.format, result.warnings);
}
