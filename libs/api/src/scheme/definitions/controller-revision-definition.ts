import { jsonEqual } from '@svc/machinery';
import { ControllerRevisionSchema, type ControllerRevision } from '../../kinds/apps/controller-revision';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

/** ValidateControllerRevision: a revision records something. */
function validateControllerRevision(obj: ApiObject): FieldError[] {
  return obj.data === undefined || obj.data === null ? [fieldErrors.required('data', 'data is mandatory')] : [];
}

/** ValidateControllerRevisionUpdate: what a revision records never changes. */
function validateControllerRevisionUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  return jsonEqual(obj.data, current.data) ? [] : [fieldErrors.invalid('data', obj.data, 'field is immutable')];
}

/** `<kind>.<group>/<name>` of the revision's controller, lower case (Kubernetes' formatResourceName), or `<none>`. */
function controllerCell(revision: ControllerRevision): string {
  const owner = (revision.metadata?.ownerReferences ?? []).find((ref) => ref.controller === true);
  if (owner === undefined) return '<none>';
  const slash = owner.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : owner.apiVersion.slice(0, slash);
  const kind = group === '' ? owner.kind : `${owner.kind}.${group}`;
  return kind === '' ? owner.name : `${kind.toLowerCase()}/${owner.name}`;
}

/** Kubernetes' ControllerRevision (apps/v1): the template history of StatefulSets and DaemonSets. */
export const controllerRevisionDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  resource: 'controllerrevisions',
  namespaced: true,
  schema: ControllerRevisionSchema,
  strategy: { validateUpdate: validateControllerRevisionUpdate },
  columns: [
    nameColumn(),
    column('Controller', 'string', (o) => controllerCell(as<ControllerRevision>(o)), { description: 'Controller of the object' }),
    column('Revision', 'string', (o) => as<ControllerRevision>(o).revision ?? 0, {
      description: 'revision indicates the revision of the state represented by Data.',
    }),
    ageColumn(),
  ],
  validationRules: [validateControllerRevision],
});
