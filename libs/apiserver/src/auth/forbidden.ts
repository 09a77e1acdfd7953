import { failureStatus, type Status } from '@svc/machinery';
import type { AuthorizationAttributes } from './authorizer';

/** Kubernetes' forbiddenMessage: who could not do what, where. */
export function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = a.user.name;
  if (!a.isResourceRequest) return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
  const namespace = a.requestedNamespace ?? a.namespace;
  const scope = namespace !== '' ? `in the namespace ${JSON.stringify(namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${scope}`;
}

/** The 403 Status Kubernetes answers a denied request with (responsewriters.Forbidden and NewForbidden). */
export function forbiddenStatus(a: AuthorizationAttributes, reason: string): Status {
  const detail = reason === '' ? forbiddenMessage(a) : `${forbiddenMessage(a)}: ${reason}`;
  const qualified = a.resource === '' ? '' : a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
  let message: string;
  if (qualified === '' && a.name === '') message = `forbidden: ${detail}`;
  else if (a.name === '') message = `${qualified} is forbidden: ${detail}`;
  else message = `${qualified} ${JSON.stringify(a.name)} is forbidden: ${detail}`;
  const details: Record<string, unknown> = {};
  if (a.name !== '') details.name = a.name;
  if (a.apiGroup !== '') details.group = a.apiGroup;
  if (a.resource !== '') details.kind = a.resource;
  return failureStatus(403, 'Forbidden', message, details);
}

/** The 401 Status of a request whose credential was refused. */
export function unauthorizedStatus(): Status {
  return failureStatus(401, 'Unauthorized', 'Unauthorized');
}
