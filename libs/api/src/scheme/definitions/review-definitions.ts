import { specGroupName } from '@svc/machinery';
import * as authn from '../../kinds/authentication/reviews';
import * as authz from '../../kinds/authorization/reviews';
import { BindingSchema } from '../../kinds/core/binding';
import { ComponentStatusSchema } from '../../kinds/core/component-status';
import type { JsonSchema } from '../../schema/json-schema';

/**
 * A resource the server answers without storing it (the review APIs, component statuses): its own
 * handler serves it, and discovery and OpenAPI list it with exactly the verbs that handler answers.
 */
export interface NonStoredResource {
  group: string;
  version: string;
  kind: string;
  resource: string;
  singular: string;
  namespaced: boolean;
  /** In Kubernetes' (sorted) order. */
  verbs: readonly string[];
  shortNames?: readonly string[];
  /** The kind of a list answer, for a resource that lists. */
  listKind?: string;
  schema: JsonSchema;
  /** What Kubernetes sends in a `Warning` header with every answer, for a deprecated resource. */
  deprecationWarning?: string;
}

const CREATE = ['create'] as const;

function bothNames(resource: NonStoredResource): NonStoredResource[] {
  const spec = specGroupName(resource.group);
  return spec === resource.group ? [resource] : [resource, { ...resource, group: spec }];
}

/** TokenReview, SelfSubjectReview and the four access reviews: create only, under both group names. */
export const REVIEW_RESOURCES: readonly NonStoredResource[] = [
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, schema: authn.SelfSubjectReviewSchema },
  { group: 'authentication.k8s.io', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, schema: authn.TokenReviewSchema },
  {
    group: 'authorization.k8s.io',
    resource: 'localsubjectaccessreviews',
    kind: 'LocalSubjectAccessReview',
    namespaced: true,
    schema: authz.LocalSubjectAccessReviewSchema,
  },
  {
    group: 'authorization.k8s.io',
    resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    schema: authz.SelfSubjectAccessReviewSchema,
  },
  {
    group: 'authorization.k8s.io',
    resource: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
    schema: authz.SelfSubjectRulesReviewSchema,
  },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, schema: authz.SubjectAccessReviewSchema },
].flatMap((r) => bothNames({ ...r, version: 'v1', singular: r.resource.slice(0, -1), verbs: CREATE, schema: r.schema }));

/** componentstatuses (v1): listed and read only, deprecated, answered by probing the components. */
export const COMPONENT_STATUS_RESOURCE: NonStoredResource = {
  group: '',
  version: 'v1',
  kind: 'ComponentStatus',
  listKind: 'ComponentStatusList',
  resource: 'componentstatuses',
  singular: 'componentstatus',
  namespaced: false,
  verbs: ['get', 'list'],
  shortNames: ['cs'],
  schema: ComponentStatusSchema,
  deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
};

/**
 * bindings (v1): create only, Kubernetes' older way to bind a pod (the Binding names the pod in its
 * `metadata.name`), carried out as the pod's `binding` subresource is.
 */
export const BINDING_RESOURCE: NonStoredResource = {
  group: '',
  version: 'v1',
  kind: 'Binding',
  resource: 'bindings',
  singular: 'binding',
  namespaced: true,
  verbs: CREATE,
  schema: BindingSchema,
};
