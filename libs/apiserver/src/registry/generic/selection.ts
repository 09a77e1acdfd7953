import { storedNamespace, type ApiObject, type KindDefinition } from '@svc/api';
import { assertFieldsSupported, FieldQuery, LabelQuery } from '@svc/machinery';

/** The objects a list, watch or deletecollection is about, from its selectors. */
export interface Selection {
  labels: LabelQuery;
  fields: FieldQuery;
  /** Undefined when nothing is filtered out. */
  filter: ((object: ApiObject) => boolean) | undefined;
  /** True when a selector was given (lists then leave remainingItemCount out). */
  selective: boolean;
}

/**
 * Parses `labelSelector` and `fieldSelector`: 400 for a malformed selector, and 400
 * `field label not supported: <field>` for a field the kind cannot be selected on.
 */
export function selectionOf(def: KindDefinition, labelSelector?: string, fieldSelector?: string): Selection {
  const labels = LabelQuery.parse(labelSelector ?? '');
  const storedName = def.strategy.storedName;
  // `metadata.namespace=kube-system` selects what is stored in svc-system (and `metadata.name=kube-system` that namespace).
  const fields = FieldQuery.parse(fieldSelector ?? '').transform((field, value) => {
    if (field === 'metadata.namespace') return [field, storedNamespace(value)];
    if (field === 'metadata.name' && storedName) return [field, storedName(value)];
    return [field, value];
  });
  assertFieldsSupported(fields, Object.keys(def.fieldSelectors));
  const selective = !labels.isEmpty() || !fields.isEmpty();
  if (!selective) return { labels, fields, filter: undefined, selective };
  const getters = def.fieldSelectors;
  const fieldsOf = (object: ApiObject) => (field: string) => getters[field]?.(object);
  const filter = (object: ApiObject): boolean => labels.matches(object.metadata?.labels) && fields.matches(fieldsOf(object));
  return { labels, fields, filter, selective };
}
