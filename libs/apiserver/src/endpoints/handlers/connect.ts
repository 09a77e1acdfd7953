import { failureStatus, StatusError, StatusReasons } from '@svc/machinery';
import { isUpgrade, takeUpgrade } from '../../request/upgrade';
import { methodNotAllowed, type ResourceRequest } from '../request-scope';

/** A connect subresource (a pod's log, exec, attach, portforward): proxied to the node agent of the object, streamed or upgraded. */
export async function serveConnect(request: ResourceRequest): Promise<void> {
  const { scope, req, deps } = request;
  const connect = scope.def.strategy.connect![scope.subresource];
  if (!connect.methods.includes((req.method ?? 'GET').toUpperCase())) throw methodNotAllowed();
  const nodeAgents = deps.nodeAgents;
  if (!nodeAgents) throw new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, 'this server has no connection to node agents', {}));
  const object = await scope.registry.get(scope.namespace, scope.name, {});
  const location = connect.location(object, request.params);
  if (isUpgrade(req)) {
    // Resolve the node first, so that a failure is still answered as a Status.
    await nodeAgents.target(location.nodeName);
    const upgrade = takeUpgrade(req);
    if (upgrade) return nodeAgents.upgrade(location, req, upgrade.socket, upgrade.head);
  }
  if (scope.subresource !== 'log') throw new StatusError(failureStatus(400, StatusReasons.BadRequest, 'Upgrade request required', {}));
  const res = request.res.stream();
  if (res !== undefined) await nodeAgents.stream(location, req, res);
}
