/** A resource type qualified by its API group; `group` is empty for the core group. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind qualified by its API group; `group` is empty for the core group. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** A GroupResource, or its string form `pods` / `deployments.apps`. */
export type GroupResourceLike = GroupResource | string;

/** A GroupKind, or its string form `Pod` / `Deployment.apps`. */
export type GroupKindLike = GroupKind | string;

/** `deployments.apps` -> {resource: 'deployments', group: 'apps'}; the group follows the first dot. */
export function parseGroupResource(value: string): GroupResource {
  const i = value.indexOf('.');
  return i >= 0 ? { group: value.slice(i + 1), resource: value.slice(0, i) } : { group: '', resource: value };
}

/** `Deployment.apps` -> {kind: 'Deployment', group: 'apps'}. */
export function parseGroupKind(value: string): GroupKind {
  const i = value.indexOf('.');
  return i >= 0 ? { group: value.slice(i + 1), kind: value.slice(0, i) } : { group: '', kind: value };
}

export function toGroupResource(value: GroupResourceLike): GroupResource {
  return typeof value === 'string' ? parseGroupResource(value) : value;
}

export function toGroupKind(value: GroupKindLike): GroupKind {
  return typeof value === 'string' ? parseGroupKind(value) : value;
}

/** `pods`, or `deployments.apps` when the group is named. */
export function formatGroupResource(value: GroupResourceLike): string {
  const gr = toGroupResource(value);
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** `Pod`, or `Deployment.apps` when the group is named. */
export function formatGroupKind(value: GroupKindLike): string {
  const gk = toGroupKind(value);
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}
