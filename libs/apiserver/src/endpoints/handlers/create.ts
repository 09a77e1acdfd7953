import { newBadRequest, type Status } from '@svc/machinery';
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

/**
 * POST of a Binding to `bindings` (core v1), Kubernetes' older binding path: the Binding names the
 * pod in its `metadata.name`, and the pod's `binding` subresource carries it out.
 */
export async function serveCreateBinding(request: ResourceRequest): Promise<void> {
  const input = await objectInputOf(request);
  const meta = (input.value as { metadata?: { name?: unknown } } | null)?.metadata;
  const name = typeof meta?.name === 'string' ? meta.name : '';
  if (name === '') throw newBadRequest('a Binding must name its pod in metadata.name');
  const scope = { ...request.scope, name, subresource: 'binding' };
  const options = writeOptionsOf(request, 'CreateOptions');
  const result = await scope.registry.createSubresource(scope.namespace, name, 'binding', input, options);
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  writeBody(request.res, 201, status, request.format, result.warnings);
}
