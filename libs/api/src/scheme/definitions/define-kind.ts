import type { TSchema } from '@sinclair/typebox';
import type { JsonSchema } from '../../schema/json-schema';
import type { ApiObject, FieldGetter, KindDefinition } from '../kind-definition';
import { isRecord } from '@svc/machinery';

type Required = Pick<KindDefinition, 'group' | 'version' | 'kind' | 'resource' | 'namespaced'> & { schema: TSchema | JsonSchema };
type Optional = Partial<Omit<KindDefinition, keyof Required>>;

/** Selectable on every kind. */
export const METADATA_FIELD_SELECTORS: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata?.name ?? '',
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

/** A built-in kind with Kubernetes' conventions filled in (singular, listKind, metadata field selectors). */
export function defineKind(def: Required & Optional): KindDefinition {
  return {
    singular: def.kind.toLowerCase(),
    listKind: `${def.kind}List`,
    shortNames: [],
    categories: [],
    subresources: {},
    allowCreateOnUpdate: false,
    defaultHooks: [],
    validationRules: [],
    strategy: {},
    served: true,
    storage: true,
    source: { type: 'builtin' },
    ...def,
    schema: def.schema,
    fieldSelectors: { ...METADATA_FIELD_SELECTORS, ...(def.fieldSelectors ?? {}) },
  };
}

/** Reads `obj` as the kind's static type; definitions are only ever given objects of their kind. */
export function as<T>(obj: ApiObject): T {
  return obj as unknown as T;
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** `<none>` for empty, as kubectl prints absent values. */
export function orNone(value: string | undefined): string {
  return value ? value : '<none>';
}

/** `k=v,k2=v2` sorted by key, `<none>` when empty (Kubernetes' labels.FormatLabels). */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}
