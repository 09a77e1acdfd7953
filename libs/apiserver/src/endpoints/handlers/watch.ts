import { partialObjectMetadataOf, tableOf } from '../views';
import { longRunningLabelsOf } from '../../metrics/metrics.service';
import type { ResourceWatchEvent } from '../../registry/types';
import { watchTimeoutSeconds } from '../../request/request-timeout';
import { isUpgrade, isWebSocketRequest, takeUpgrade } from '../../request/upgrade';
import { streamWatch } from '../responses/watch-stream';
import { acceptWebSocket, streamWatchOverWebSocket } from '../responses/watch-websocket';
import { parseIncludeObject, parseWatchQuery } from '../query-options';
import { shownIn, type RequestScope, type ResourceRequest } from '../request-scope';
import type { OutputFormat } from '../responses/negotiation';

/**
 * A watch (`?watch=true`, or the `watch/` path prefix): the selected objects' events from the
 * resourceVersion asked, streamed until the randomized timeout (at least `--min-request-timeout`),
 * the client leaving or the server stopping, in the view asked for; over a WebSocket when the request
 * is a WebSocket handshake.
 */
export async function serveWatch(request: ResourceRequest): Promise<void> {
  const { scope, params, format, deps } = request;
  const query = parseWatchQuery(params, scope.name);
  const includeObject = format.view?.as === 'Table' ? parseIncludeObject(params) : 'Metadata';
  const timeoutMs = watchTimeoutSeconds(deps.minRequestTimeoutSeconds, query.timeoutSeconds) * 1000;
  const watch = await scope.registry.watch(scope.namespace, { ...query, deadline: Date.now() + timeoutMs });
  const labels = longRunningLabelsOf(scope.info, request.req.headers['content-type']);
  deps.metrics.watchOpened(labels);
  try {
    const options = { watch, format, timeoutMs, stopSignal: deps.lifecycle.longRunningStopSignal, view: eventView(scope, format, includeObject) };
    // A browser watches over a WebSocket (it cannot hold many chunked responses open); every other client over HTTP.
    const upgrade = isUpgrade(request.req) && isWebSocketRequest(request.req) ? takeUpgrade(request.req) : undefined;
    if (upgrade) await streamWatchOverWebSocket(await acceptWebSocket(request.req, upgrade.socket, upgrade.head), options);
    else await streamWatch(request.res, options);
  } finally {
    deps.metrics.watchClosed(labels);
  }
}

/** What each event carries in the view asked for; undefined when events go out as they are. */
function eventView(
  scope: RequestScope,
  format: OutputFormat,
  includeObject: 'None' | 'Metadata' | 'Object',
): ((event: ResourceWatchEvent) => unknown) | undefined {
  const view = format.view;
  if (view === undefined && scope.shownNamespace === undefined) return undefined;
  return (event) => {
    if (event.type === 'ERROR' || event.type === 'BOOKMARK') return event.object;
    const object = shownIn(scope, event.object);
    if (view === undefined) return object;
    return view.as === 'Table' ? tableOf(scope.def, [object], view.apiVersion, includeObject) : partialObjectMetadataOf(object, view.apiVersion);
  };
}
