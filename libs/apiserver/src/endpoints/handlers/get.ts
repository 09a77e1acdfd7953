import { writeBody } from '../responses/write-body';
import { shownIn, type ResourceRequest } from '../request-scope';
import { viewOfObject } from '../views';

/** GET of one object (or its status), at the resourceVersion the query names, in the view asked for. */
export async function serveGet(request: ResourceRequest): Promise<void> {
  const { scope, params, format } = request;
  const object = await scope.registry.get(scope.namespace, scope.name, { resourceVersion: params.get('resourceVersion') ?? undefined });
  writeBody(request.res, 200, viewOfObject(scope.def, shownIn(scope, object), format, params), format);
}

/** GET of the `scale` subresource: the object as an autoscaling/v1 Scale. */
export async function serveGetScale(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  writeBody(request.res, 200, shownIn(scope, await scope.registry.getScale(scope.namespace, scope.name)), request.format);
}
