import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, Described, ListAtomic } from '../../schema/builders';

/** The operators a node selector requirement may use (NodeSelectorOperator), sorted as Kubernetes lists them. */
export const NodeSelectorOperators = ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'] as const;

export const NodeSelectorRequirementSchema = Described(
  Type.Object({
    key: Type.String(),
    operator: Type.String(),
    values: Type.Optional(ListAtomic(Type.String())),
  }),
  {
    key: 'The label key (or, in matchFields, the field) the requirement reads.',
    operator: 'In, NotIn, Exists, DoesNotExist, Gt or Lt.',
    values: 'The values the operator compares with: none for Exists and DoesNotExist, one integer for Gt and Lt.',
  },
  "A requirement on a node's label or field.",
);

export const NodeSelectorTermSchema = Described(
  Type.Object(
    {
      matchExpressions: Type.Optional(ListAtomic(NodeSelectorRequirementSchema)),
      matchFields: Type.Optional(ListAtomic(NodeSelectorRequirementSchema)),
    },
    ATOMIC,
  ),
  {
    matchExpressions: "Requirements on the node's labels, all of which must hold.",
    matchFields: "Requirements on the node's fields (metadata.name), all of which must hold.",
  },
  'Requirements a node meets when all of them hold.',
);

export const NodeSelectorSchema = Described(
  Type.Object({ nodeSelectorTerms: ListAtomic(NodeSelectorTermSchema) }, ATOMIC),
  { nodeSelectorTerms: 'Terms of which at least one must hold.' },
  'Which nodes are chosen: those meeting any one of the terms.',
);

export type NodeSelectorRequirement = Static<typeof NodeSelectorRequirementSchema>;

export type NodeSelector = Static<typeof NodeSelectorSchema>;
