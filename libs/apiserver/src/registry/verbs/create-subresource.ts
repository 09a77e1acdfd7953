import type { ApiObject } from '@svc/api';
import { newBadRequest, newInvalid, newNotFound } from '@svc/machinery';
import type { SubresourceRestTable } from '../rest';
import type { ResourceRegistries } from '../registries';
import type { Store } from '../generic/store';
import { newWriteState } from '../generic/write-state';
import type { ObjectInput, WriteOptions, WriteResult } from '../types';
import { checkNamespace, objectOf } from './body-checks';
import { mutatingAdmission, validatingAdmission } from './admission-attributes';

/**
 * POST of a subresource whose body is another kind's object (a pod's `binding`, `eviction`), as
 * Kubernetes' create handler runs it for a named creater: the body checked against the subresource's
 * kind, the path's name and namespace and its own rules (422 of that kind), admission, then the
 * kind's REST of the subresource acts.
 */
export async function createSubresource(
  store: Store,
  registries: ResourceRegistries,
  rest: SubresourceRestTable,
  namespace: string,
  name: string,
  subresource: string,
  input: ObjectInput,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const create = store.definition.strategy.subresources?.[subresource]?.create;
  const handler = rest(store.stored.group, store.stored.resource, subresource);
  if (create === undefined || handler === undefined) throw newNotFound(store.groupResource, name);
  const body = objectOf(store.definition, input.value);
  checkBodyKind(body, create.kind);
  checkNamespace(store.definition, body, namespace);
  if ((body.metadata?.name ?? '') !== name) throw newBadRequest(`name in URL does not match name in ${create.kind.kind} object`);
  const errors = create.validate(body);
  if (errors.length > 0) throw newInvalid({ group: create.kind.group, kind: create.kind.kind }, name, errors);
  const w = newWriteState(store, namespace, name, subresource, options);
  await mutatingAdmission(store, 'CREATE', w, body);
  await validatingAdmission(store, 'CREATE', w, body);
  const result = await handler.create({ store, registries, w, namespace, name, body, options });
  return result ?? { object: body, warnings: w.warnings, created: true };
}

function checkBodyKind(body: ApiObject, kind: { group: string; version: string; kind: string }): void {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  if (body.kind !== undefined && body.kind !== kind.kind) {
    throw newBadRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind.kind})`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw newBadRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
}
