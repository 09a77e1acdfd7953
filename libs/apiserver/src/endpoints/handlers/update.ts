import type { WriteTarget } from '../../registry/generic/write-state';
import { writeBody } from '../responses/write-body';
import { objectInputOf, shownIn, writeOptionsOf, type ResourceRequest } from '../request-scope';

/** PUT of the object, its status, or a subresource its kind serves: UpdateOptions from the query; 201 when it created the object. */
export async function serveUpdate(request: ResourceRequest, target: WriteTarget): Promise<void> {
  const { scope } = request;
  const options = writeOptionsOf(request, 'UpdateOptions');
  const result = await scope.registry.update(scope.namespace, scope.name, await objectInputOf(request), options, target);
  writeBody(request.res, result.created ? 201 : 200, shownIn(scope, result.object), request.format, result.warnings);
}

/** PUT of the `scale` subresource: a Scale in, a Scale out. */
export async function serveUpdateScale(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  const options = writeOptionsOf(request, 'UpdateOptions');
  const { scale, warnings } = await scope.registry.updateScale(scope.namespace, scope.name, await objectInputOf(request), options);
  writeBody(request.res, 200, shownIn(scope, scale), request.format, warnings);
}
