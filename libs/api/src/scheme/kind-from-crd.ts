import type { CustomResourceColumnDefinition, CustomResourceDefinition } from '../kinds/apiextensions/custom-resource-definition';
import { timestampSince } from './human-duration';
import { ValidationRuleSet } from '../cel/validation-rules';
import { customResourceSchema } from './crd-schema';
import { METADATA_FIELD_SELECTORS } from './definitions/define-kind';
import { jsonPathValue, parseJsonPath } from './json-path';
import type { ApiObject, FieldGetter, KindConversion, KindDefinition, TableColumn } from './kind-definition';
import type { ResetField } from './kind-strategy';
import { nameColumn, column } from './table';

/**
 * A custom resource's status write takes its status alone: Kubernetes' statusStrategy copies the
 * stored object whole and puts the request's status in it.
 */
const CUSTOM_RESOURCE_STATUS_RESET_FIELDS: readonly ResetField[] = [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']];

function printerCell(col: CustomResourceColumnDefinition): TableColumn['cell'] {
  const path = parseJsonPath(col.jsonPath);
  return (obj: ApiObject, { now }) => {
    const value = jsonPathValue(obj, path);
    if (value === undefined || value === null) return null;
    switch (col.type) {
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value) ? value : null;
      case 'number':
        return typeof value === 'number' ? value : null;
      case 'boolean':
        return typeof value === 'boolean' ? value : null;
      case 'date':
        return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? timestampSince(value, now) : '<invalid>';
      default:
        return typeof value === 'string' ? value : JSON.stringify(value);
    }
  };
}

function columnsFor(columns: readonly CustomResourceColumnDefinition[] | undefined): TableColumn[] {
  // A version without printer columns shows its age, as Kubernetes does for custom resources.
  const list = columns?.length
    ? columns
    : [{ name: 'Age', type: 'date' as const, jsonPath: '.metadata.creationTimestamp', description: 'Time since the object was created.' }];
  return [
    nameColumn(),
    ...list.map((c) => column(c.name, c.type, printerCell(c), { priority: c.priority ?? 0, format: c.format ?? '', description: c.description ?? '' })),
  ];
}

function stringValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The KindDefinition of one version of a CustomResourceDefinition. It goes through the same
 * engine as a built-in kind: its schema is compiled, defaulted, validated and walked alike.
 */
export function kindFromCrd(crd: CustomResourceDefinition, versionName: string): KindDefinition {
  const { spec } = crd;
  const version = spec.versions.find((v) => v.name === versionName);
  if (!version) throw new Error(`CustomResourceDefinition ${crd.metadata?.name ?? spec.names.plural + '.' + spec.group} has no version ${versionName}`);
  const scale = version.subresources?.scale;
  const schema = customResourceSchema(version.schema?.openAPIV3Schema, spec.preserveUnknownFields === true);
  const rules = ValidationRuleSet.of(schema);
  const conversion = conversionOf(crd);
  return {
    group: spec.group,
    version: version.name,
    kind: spec.names.kind,
    resource: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: [...(spec.names.shortNames ?? [])],
    categories: [...(spec.names.categories ?? [])],
    subresources: {
      status: version.subresources?.status !== undefined,
      scale: scale ? { ...scale } : undefined,
    },
    schema,
    fieldSelectors: fieldSelectorsOf(version.selectableFields),
    columns: columnsFor(version.additionalPrinterColumns),
    allowCreateOnUpdate: false,
    defaultHooks: [],
    validationRules: rules ? [(obj) => rules.validate(obj)] : [],
    // Kubernetes keeps a custom resource's generation, and its status writes change only status.
    strategy: {
      tracksGeneration: true,
      status: {
        resetFields: CUSTOM_RESOURCE_STATUS_RESET_FIELDS,
        ...(rules && { validateUpdate: (obj: ApiObject, current: ApiObject) => rules.validateTransition(obj, current) }),
      },
      ...(rules && { validateUpdate: (obj: ApiObject, current: ApiObject) => rules.validateTransition(obj, current) }),
    },
    served: version.served,
    storage: version.storage,
    deprecation: version.deprecated ? { deprecated: true, warning: version.deprecationWarning } : undefined,
    source: { type: 'crd', name: crd.metadata?.name ?? `${spec.names.plural}.${spec.group}` },
    ...(conversion && { conversion }),
  };
}

/** The metadata's field selectors and the version's selectable fields. */
function fieldSelectorsOf(selectable: ReadonlyArray<{ jsonPath: string }> | undefined): Record<string, FieldGetter> {
  const fieldSelectors: Record<string, FieldGetter> = { ...METADATA_FIELD_SELECTORS };
  for (const f of selectable ?? []) {
    const path = parseJsonPath(f.jsonPath);
    fieldSelectors[f.jsonPath.replace(/^\./, '')] = (o) => stringValue(jsonPathValue(o, path));
  }
  return fieldSelectors;
}

/** The conversion webhook of a definition whose strategy is Webhook, with the storage version it converts to. */
function conversionOf(crd: CustomResourceDefinition): KindConversion | undefined {
  const { spec } = crd;
  const webhook = spec.conversion?.strategy === 'Webhook' ? spec.conversion.webhook : undefined;
  const storageVersion = spec.versions.find((v) => v.storage)?.name;
  if (!webhook?.clientConfig || !storageVersion) return undefined;
  return { storageVersion, clientConfig: structuredClone(webhook.clientConfig), conversionReviewVersions: [...webhook.conversionReviewVersions] };
}

/** One definition per served version. */
export function kindsFromCrd(crd: CustomResourceDefinition): KindDefinition[] {
  return crd.spec.versions.filter((v) => v.served).map((v) => kindFromCrd(crd, v.name));
}
