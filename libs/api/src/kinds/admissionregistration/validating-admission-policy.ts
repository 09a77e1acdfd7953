import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic, StringEnum } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';
import { MatchConditionSchema, RuleWithOperationsSchema } from './webhook-configuration';

export const MatchResourcesSchema = Type.Object({
  namespaceSelector: Type.Optional(LabelSelectorSchema),
  objectSelector: Type.Optional(LabelSelectorSchema),
  resourceRules: Type.Optional(ListAtomic(RuleWithOperationsSchema)),
  excludeResourceRules: Type.Optional(ListAtomic(RuleWithOperationsSchema)),
  matchPolicy: Type.Optional(StringEnum(['Exact', 'Equivalent'] as const, { default: 'Equivalent' })),
});
export type MatchResources = Static<typeof MatchResourcesSchema>;

export const PolicyValidationSchema = Type.Object({
  expression: Type.String({ minLength: 1, maxLength: 10 * 1024 }),
  message: Type.Optional(Type.String({ maxLength: 5000 })),
  messageExpression: Type.Optional(Type.String({ maxLength: 10 * 1024 })),
  reason: Type.Optional(Type.String()),
});

export const ValidatingAdmissionPolicySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(
    Type.Object({
      matchConstraints: Type.Optional(MatchResourcesSchema),
      validations: Type.Optional(ListAtomic(PolicyValidationSchema, { maxItems: 64 })),
      failurePolicy: Type.Optional(StringEnum(['Ignore', 'Fail'] as const, { default: 'Fail' })),
      /** The kind of the objects a binding hands the policy as `params`. */
      paramKind: Type.Optional(Type.Object({ apiVersion: Type.String({ minLength: 1 }), kind: Type.String({ minLength: 1 }) })),
      matchConditions: Type.Optional(Type.Array(MatchConditionSchema, { 'x-svc-list-type': 'map', 'x-svc-list-map-keys': ['name'], maxItems: 64 })),
      /** Named expressions the validations read as `variables.<name>`, each able to read the ones before it. */
      variables: Type.Optional(
        Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 63 }), expression: Type.String({ minLength: 1, maxLength: 10 * 1024 }) }), {
          'x-svc-list-type': 'map',
          'x-svc-list-map-keys': ['name'],
          maxItems: 64,
        }),
      ),
    }),
  ),
  status: Type.Optional(Type.Object({ observedGeneration: Type.Optional(Type.Integer()) })),
});
export type ValidatingAdmissionPolicy = Static<typeof ValidatingAdmissionPolicySchema>;
export type ValidatingAdmissionPolicyList = List<ValidatingAdmissionPolicy>;

export const ValidatingAdmissionPolicyBindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(
    Type.Object({
      policyName: Type.String({ minLength: 1 }),
      matchResources: Type.Optional(MatchResourcesSchema),
      /** Which objects of the policy's paramKind are its `params`: one by name, or all a selector matches. */
      paramRef: Type.Optional(
        Type.Object({
          name: Type.Optional(Type.String()),
          namespace: Type.Optional(Type.String()),
          selector: Type.Optional(LabelSelectorSchema),
          parameterNotFoundAction: Type.Optional(StringEnum(['Allow', 'Deny'] as const, { default: 'Deny' })),
        }),
      ),
      validationActions: ListAtomic(StringEnum(['Deny', 'Warn', 'Audit'] as const), { minItems: 1 }),
    }),
  ),
});
export type ValidatingAdmissionPolicyBinding = Static<typeof ValidatingAdmissionPolicyBindingSchema>;
export type ValidatingAdmissionPolicyBindingList = List<ValidatingAdmissionPolicyBinding>;
