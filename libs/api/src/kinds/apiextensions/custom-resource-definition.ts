import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, Int32, ListAtomic, ListMap, StringEnum } from '../../schema/builders';
import { kindConditionSchema, OptionalTime } from '../../meta/condition';
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
