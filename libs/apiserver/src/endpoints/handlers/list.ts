import { listJsonBytes } from '../responses/encoded-json';
import { writeBody, writeEncoded } from '../responses/write-body';
import { parseListQuery } from '../query-options';
import { shownIn, type ResourceRequest } from '../request-scope';
import { listHead, viewOfList } from '../views';

/**
 * GET of a collection: the selected objects at the resourceVersion and page the query names. A plain
 * JSON list is assembled from the items' own bytes, shared with every other read and watch of them.
 */
export async function serveList(request: ResourceRequest): Promise<void> {
  const { scope, params, format, res } = request;
  const listed = await scope.registry.list(scope.namespace, parseListQuery(params));
  const outcome = scope.shownNamespace === undefined ? listed : { ...listed, items: listed.items.map((item) => shownIn(scope, item)) };
  if (format.encoding === 'json' && format.view === undefined && !format.pretty && scope.shownNamespace === undefined) {
    const pool = request.deps.largeBodies;
    const body = listJsonBytes(listHead(scope.def, outcome), outcome.items, pool.allocate);
    writeEncoded(res, 200, body, format);
    pool.releaseAfter(res.raw, body);
    return;
  }
  writeBody(res, 200, viewOfList(scope.def, outcome, format, params), format);
}
