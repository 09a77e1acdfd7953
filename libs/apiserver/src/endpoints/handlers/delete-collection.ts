import { apiVersionOf } from '@svc/api';
import { parseListQuery } from '../query-options';
import { callerOf, shownIn, type ResourceRequest } from '../request-scope';
import { writeBody } from '../responses/write-body';
import { deleteOptionsOf } from './delete';

/** DELETE of a collection: the query's selectors pick the objects, each deleted as one DELETE would; answered with the list of them. */
export async function serveDeleteCollection(request: ResourceRequest): Promise<void> {
  const { scope } = request;
  const query = parseListQuery(request.params);
  const { request: options, dryRun } = await deleteOptionsOf(request);
  const items = await scope.registry.deleteCollection(scope.namespace, query, options, { dryRun, ...callerOf(request.req) });
  const list = { kind: scope.def.listKind, apiVersion: apiVersionOf(scope.def), metadata: {}, items: items.map((item) => shownIn(scope, item)) };
  writeBody(request.res, 200, list, request.format);
}
