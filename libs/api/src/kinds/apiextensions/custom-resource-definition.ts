import { Type, type Static } from '@sinclair/typebox';
import { describeFields, FreeForm, Int32, ListAtomic, ListMap, StringEnum } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { DNS1123_LABEL_PATTERN, DNS1123_SUBDOMAIN_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import type { JsonSchema } from '../../schema/json-schema';

export const CRDScopes = ['Namespaced', 'Cluster'] as const;
export const PrinterColumnTypes = ['integer', 'number', 'string', 'boolean', 'date'] as const;

const LowercaseLabel = () => Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: 63 });

export const CustomResourceDefinitionNamesSchema = Type.Object({
  plural: LowercaseLabel(),
  singular: Type.Optional(LowercaseLabel()),
  shortNames: Type.Optional(ListAtomic(LowercaseLabel())),
  kind: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]*$' }),
  listKind: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]*$' })),
  categories: Type.Optional(ListAtomic(LowercaseLabel())),
});
export type CustomResourceDefinitionNames = Static<typeof CustomResourceDefinitionNamesSchema>;

/** The names a controller accepted: empty (kind and plural are always serialized) until it has accepted any. */
const AcceptedNamesSchema = Type.Object({
  ...CustomResourceDefinitionNamesSchema.properties,
  plural: Type.String({ pattern: `^$|${DNS1123_LABEL_PATTERN}`, maxLength: 63 }),
  kind: Type.String({ pattern: '^$|^[A-Za-z][A-Za-z0-9]*$' }),
});

export const CustomResourceColumnDefinitionSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  type: StringEnum(PrinterColumnTypes),
  format: Type.Optional(StringEnum(['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'] as const)),
  description: Type.Optional(Type.String()),
  priority: Type.Optional(Int32({ minimum: 0 })),
  jsonPath: Type.String({ minLength: 1 }),
});
export type CustomResourceColumnDefinition = Static<typeof CustomResourceColumnDefinitionSchema>;

export const CustomResourceSubresourceScaleSchema = Type.Object({
  specReplicasPath: Type.String({ pattern: '^\\.' }),
  statusReplicasPath: Type.String({ pattern: '^\\.' }),
  labelSelectorPath: Type.Optional(Type.String({ pattern: '^\\.' })),
});

export const CustomResourceDefinitionVersionSchema = Type.Object({
  name: LowercaseLabel(),
  served: Type.Boolean(),
  storage: Type.Boolean(),
  deprecated: Type.Optional(Type.Boolean()),
  deprecationWarning: Type.Optional(Type.String({ maxLength: 256 })),
  schema: Type.Optional(
    Type.Object({
      /** Any JSON Schema: the engine compiles it when the version is served. */
      openAPIV3Schema: Type.Optional(Type.Unsafe<JsonSchema>(FreeForm())),
    }),
  ),
  subresources: Type.Optional(
    Type.Object({
      status: Type.Optional(FreeForm()),
      scale: Type.Optional(CustomResourceSubresourceScaleSchema),
    }),
  ),
  additionalPrinterColumns: Type.Optional(ListAtomic(CustomResourceColumnDefinitionSchema)),
  selectableFields: Type.Optional(ListAtomic(Type.Object({ jsonPath: Type.String({ pattern: '^\\.' }) }))),
});
export type CustomResourceDefinitionVersion = Static<typeof CustomResourceDefinitionVersionSchema>;

export const CustomResourceConversionSchema = Type.Object({
  strategy: StringEnum(['None', 'Webhook'] as const, { default: 'None' }),
  webhook: Type.Optional(
    Type.Object({
      clientConfig: Type.Optional(
        Type.Object({
          url: Type.Optional(Type.String()),
          service: Type.Optional(
            Type.Object({
              namespace: Type.String(),
              name: Type.String(),
              path: Type.Optional(Type.String()),
              port: Type.Optional(Int32({ default: 443 })),
            }),
          ),
          caBundle: Type.Optional(Type.String({ format: 'byte' })),
        }),
      ),
      conversionReviewVersions: ListAtomic(Type.String()),
    }),
  ),
});

export const CustomResourceDefinitionSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Object({
    group: Type.String({ pattern: DNS1123_SUBDOMAIN_PATTERN, maxLength: 253 }),
    names: CustomResourceDefinitionNamesSchema,
    scope: StringEnum(CRDScopes),
    versions: ListAtomic(CustomResourceDefinitionVersionSchema, { minItems: 1 }),
    conversion: Type.Optional(Type.Object(CustomResourceConversionSchema.properties, { default: { strategy: 'None' } })),
    preserveUnknownFields: Type.Optional(Type.Boolean()),
  }),
  status: Type.Optional(
    Type.Object({
      conditions: Type.Optional(ListMap(kindConditionSchema({ lastTransitionTime: OptionalTime() }), ['type'])),
      acceptedNames: Type.Optional(AcceptedNamesSchema),
      storedVersions: Type.Optional(ListAtomic(Type.String())),
    }),
  ),
});
export type CustomResourceDefinition = Static<typeof CustomResourceDefinitionSchema>;
export type CustomResourceDefinitionList = List<CustomResourceDefinition>;

// What `kubectl explain` says of each field, in this project's words.
const NAMES = {
  plural: 'The plural, lower-case name in URLs (`/apis/<group>/<version>/<plural>`); the CRD is named `<plural>.<group>`.',
  singular: 'The singular, lower-case name, as kubectl takes it; the kind in lower case by default.',
  shortNames: 'Short names kubectl takes, as in `kubectl get <short name>`.',
  kind: 'The kind of the objects, in CamelCase.',
  listKind: 'The kind of lists of them; `<kind>List` by default.',
  categories: 'Groups of resources it belongs to, such as `all`, for `kubectl get <category>`.',
};
describeFields(CustomResourceDefinitionNamesSchema, NAMES, 'The names a custom resource is served under.');
describeFields(
  CustomResourceColumnDefinitionSchema,
  {
    name: "The column's heading.",
    type: 'The type of its values: integer, number, string, boolean or date.',
    format: 'A finer type for them, such as int32 or date-time; `name` marks the column of names.',
    description: 'What the column shows.',
    priority: 'How important the column is: 0 is shown by default, higher ones only in wide output (`-o wide`).',
    jsonPath: 'The field shown, as a simple JSON path from the root of the object, such as `.status.phase`.',
  },
  'A column `kubectl get` shows for a custom resource.',
);
describeFields(
  CustomResourceSubresourceScaleSchema,
  {
    specReplicasPath: "Where the desired replica count is, as a JSON path under `.spec` such as `.spec.replicas`: the Scale's spec.replicas.",
    statusReplicasPath: "Where the observed replica count is, as a JSON path under `.status`: the Scale's status.replicas.",
    labelSelectorPath: "Where the selector of the pods is, as a string, under `.spec` or `.status`: the Scale's status.selector, which autoscalers need.",
  },
  'How the scale subresource reads and writes the replica counts of a custom resource.',
);
describeFields(
  CustomResourceDefinitionVersionSchema,
  {
    name: 'The name of the version, as in `/apis/<group>/<name>`, such as v1 or v1beta1.',
    served: 'Whether the version is served.',
    storage: 'Whether objects are stored in this version; exactly one version is.',
    deprecated: 'Whether the version is deprecated: requests to it get a warning.',
    deprecationWarning: 'The warning those requests get, in place of the default one.',
    schema: 'The schema objects of this version must meet.',
    'schema.openAPIV3Schema': 'A structural OpenAPI v3 schema: it validates and defaults the objects, and fields outside it are dropped.',
    subresources: 'The subresources served: status and scale.',
    'subresources.status':
      'Serves /status: updates of the object then leave status as it was, those of /status change only status, and metadata.generation grows only for changes outside status.',
    'subresources.scale': 'Serves /scale, as autoscalers and `kubectl scale` use it.',
    additionalPrinterColumns: 'Columns `kubectl get` shows besides the name and age.',
    selectableFields: 'Fields field selectors may use, besides metadata.name and metadata.namespace; at most 8.',
    'selectableFields.jsonPath': 'The field, as a JSON path such as `.spec.color`, to a string, integer or boolean.',
  },
  'One version of a custom resource: whether it is served and stored, its schema, subresources and columns.',
);
describeFields(
  CustomResourceConversionSchema,
  {
    strategy: 'None (only apiVersion changes, the default) or Webhook (a webhook converts the objects).',
    webhook: 'The conversion webhook, for strategy Webhook.',
    'webhook.clientConfig': 'How the API server reaches the webhook.',
    'webhook.clientConfig.url': 'The URL of a webhook outside the cluster: https, with no user, query or fragment. Not with service.',
    'webhook.clientConfig.service': 'The Service a webhook in the cluster runs behind, called over https. Not with url.',
    'webhook.clientConfig.service.namespace': "The service's namespace.",
    'webhook.clientConfig.service.name': "The service's name.",
    'webhook.clientConfig.service.path': 'The URL path requests are sent to.',
    'webhook.clientConfig.service.port': 'The service port to call; 443 by default.',
    'webhook.clientConfig.caBundle':
      "The CA certificates (PEM) the webhook's serving certificate must chain to; the API server's own trust roots when left out.",
    'webhook.conversionReviewVersions': 'The ConversionReview versions the webhook understands, preferred first; the API server sends the first it knows.',
  },
  'How the objects of a custom resource are converted between its versions.',
);
describeFields(CustomResourceDefinitionSchema, {
  'spec.group': 'The API group of the resource, such as `stable.example.com`.',
  'spec.names': 'The names the resource is served under.',
  'spec.scope': 'Namespaced or Cluster. It cannot change.',
  'spec.versions': 'The versions of the resource; exactly one is the one objects are stored in.',
  'spec.conversion': 'How objects are converted between the versions.',
  'spec.preserveUnknownFields':
    'Deprecated, and false in v1: fields outside the schema are dropped, save where the schema keeps them with x-kubernetes-preserve-unknown-fields.',
  'status.conditions': 'Established, NamesAccepted, NonStructuralSchema, Terminating and the like, each with why.',
  ...conditionFieldDescriptions(
    (CustomResourceDefinitionSchema.properties.status.properties.conditions as unknown as { items: { properties: object } }).items,
    'Established (served), NamesAccepted (its names clash with no other), NonStructuralSchema, Terminating or KubernetesAPIApprovalPolicyConformant.',
    'status.conditions.',
  ),
  'status.acceptedNames': "The names actually served; they differ from spec's while those clash with another resource's.",
  ...Object.fromEntries(Object.entries(NAMES).map(([name, text]) => [`status.acceptedNames.${name}`, text])),
  'status.storedVersions':
    'Every version objects have been stored in. A version leaves spec.versions only once it is off this list, after its objects are migrated.',
});
(CustomResourceDefinitionSchema as { description?: string }).description =
  'Adds a resource of your own to the API (its group, names, versions and schemas), whose objects are then served and stored like built-in ones.';
