import { isRecord } from '@svc/machinery';
import { NAMESPACE_FINALIZER, NamespaceSchema, type Namespace } from '../../kinds/core/namespace';
import type { ApiObject } from '../kind-definition';
import type { KindStrategy } from '../kind-strategy';
import { fieldErrors } from '../../schema/field-error';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { storedNamespace } from '../../kinds/core/well-known';

function specOf(namespace: ApiObject): Record<string, unknown> {
  return isRecord(namespace.spec) ? namespace.spec : (namespace.spec = {});
}

function specFinalizers(namespace: ApiObject): unknown[] {
  const spec = namespace.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) ? spec.finalizers : [];
}

/** The label every namespace carries with its own name (SetDefaults_Namespace in pkg/apis/core/v1/defaults.go). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** SetDefaults_Namespace: a named namespace is labelled with its name, whatever the client sent for that label. */
function defaultNamespace(namespace: ApiObject): void {
  const meta = namespace.metadata;
  if (!meta?.name) return;
  meta.labels = { ...(isRecord(meta.labels) ? meta.labels : {}), [NAMESPACE_NAME_LABEL]: meta.name };
}

/**
 * Kubernetes' namespace strategy: a namespace starts Active with the finalizer its controller removes
 * once its content is gone; spec.finalizers change only through `finalize`; a deleted namespace is
 * Terminating until they are gone too; delete answers with the namespace.
 */
export const namespaceStrategy: KindStrategy = {
  // Kubernetes' namespace strategy keeps no generation.
  tracksGeneration: false,
  // `kube-system` is `svc-system`, one object under the spec's name.
  storedName: storedNamespace,
  prepareForCreate(namespace) {
    namespace.status = { phase: 'Active' };
    const spec = specOf(namespace);
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    if (!finalizers.includes(NAMESPACE_FINALIZER)) spec.finalizers = [...finalizers, NAMESPACE_FINALIZER];
  },
  prepareForUpdate(namespace, current) {
    const spec = specOf(namespace);
    const oldSpec = isRecord(current.spec) ? current.spec : {};
    if (oldSpec.finalizers === undefined) delete spec.finalizers;
    else spec.finalizers = oldSpec.finalizers;
  },
  returnDeletedObject: true,
  pendingFinalizers: specFinalizers,
  onDeletionMarked(namespace) {
    const status = isRecord(namespace.status) ? namespace.status : (namespace.status = {});
    status.phase = 'Terminating';
  },
  subresources: {
    // The namespace controller's write of spec.finalizers; nothing else of the namespace changes.
    finalize: {
      updateOf(incoming, current) {
        const spec = isRecord(incoming.spec) ? incoming.spec : {};
        const next: ApiObject = {
          ...current,
          metadata: { ...current.metadata },
          spec: { ...(isRecord(current.spec) ? current.spec : {}), finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [] },
        };
        const rv = incoming.metadata?.resourceVersion;
        if (rv !== undefined) next.metadata!.resourceVersion = rv;
        else delete next.metadata!.resourceVersion;
        return next;
      },
    },
  },
};

export const namespaceDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  subresources: { status: true },
  schema: NamespaceSchema,
  fieldSelectors: { 'status.phase': (o) => as<Namespace>(o).status?.phase ?? '' },
  strategy: namespaceStrategy,
  defaultHooks: [defaultNamespace],
  validationRules: [
    // Kubernetes' namespace status validation: the phase follows the deletion mark, so a status write
    // cannot make a living namespace refuse new content.
    (o) => {
      const phase = as<Namespace>(o).status?.phase;
      if (phase === undefined) return [];
      if (!o.metadata?.deletionTimestamp) {
        return phase === 'Active' ? [] : [fieldErrors.invalid('status.phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
      }
      return phase === 'Terminating' ? [] : [fieldErrors.invalid('status.phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
    },
  ],
  columns: [
    nameColumn(),
    column('Status', 'string', (o) => as<Namespace>(o).status?.phase ?? '', { description: 'The status of the namespace.' }),
    ageColumn(),
  ],
});
