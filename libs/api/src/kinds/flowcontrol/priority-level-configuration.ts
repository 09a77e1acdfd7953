import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { FlowcontrolConditionSchema } from './flow-schema';

export const PriorityLevelEnablements = ['Exempt', 'Limited'] as const;
export const LimitResponseTypes = ['Queue', 'Reject'] as const;
/** Kubernetes' defaults of a Limited level. */
export const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUING = { queues: 64, handSize: 8, queueLengthLimit: 50 } as const;
/** The largest number of queues a level may have (Kubernetes' priorityLevelConfigurationQueuingMaxQueues). */
export const MAX_QUEUES = 10_000_000;

export const QueuingConfigurationSchema = Type.Object({
  queues: Type.Optional(Int32()),
  handSize: Type.Optional(Int32()),
  queueLengthLimit: Type.Optional(Int32()),
});

export const LimitResponseSchema = Type.Object({
  type: Type.String(),
  queuing: Type.Optional(QueuingConfigurationSchema),
});

export const LimitedPriorityLevelConfigurationSchema = Type.Object({
  nominalConcurrencyShares: Type.Optional(Int32()),
  limitResponse: Type.Optional(LimitResponseSchema),
  lendablePercent: Type.Optional(Int32()),
  borrowingLimitPercent: Type.Optional(Int32()),
});

export const ExemptPriorityLevelConfigurationSchema = Type.Object({
  nominalConcurrencyShares: Type.Optional(Int32()),
  lendablePercent: Type.Optional(Int32()),
});

export const PriorityLevelConfigurationSpecSchema = Type.Object({
  type: Type.String(),
  limited: Type.Optional(LimitedPriorityLevelConfigurationSchema),
  exempt: Type.Optional(ExemptPriorityLevelConfigurationSchema),
});

export const PriorityLevelConfigurationStatusSchema = Type.Object({
  conditions: Type.Optional(ListMap(FlowcontrolConditionSchema, ['type'])),
});

export const PriorityLevelConfigurationSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(PriorityLevelConfigurationSpecSchema),
  status: Type.Optional(PriorityLevelConfigurationStatusSchema),
});
export type PriorityLevelConfiguration = Static<typeof PriorityLevelConfigurationSchema>;
export type PriorityLevelConfigurationList = List<PriorityLevelConfiguration>;
export type PriorityLevelConfigurationSpec = Static<typeof PriorityLevelConfigurationSpecSchema>;
export type QueuingConfiguration = Static<typeof QueuingConfigurationSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  PriorityLevelConfigurationSchema,
  {
    spec: 'How many seats the level has and what happens to requests beyond them.',
    status: 'What the API server found of the level.',
  },
  "A share of the API server's concurrency that the requests of the FlowSchemas naming it run in, with queues for those that wait; API Priority and Fairness.",
);
describeFields(
  PriorityLevelConfigurationSpecSchema,
  {
    type: "Exempt (requests run at once, without limit; only the level named exempt) or Limited (requests run in the level's seats). Required.",
    limited: 'The seats and queues of a Limited level; required when type is Limited.',
    exempt: 'The shares of an Exempt level, which count in the division of seats among levels but limit nothing.',
  },
  'What a priority level is: Exempt or Limited, with its seats and queues.',
);
describeFields(
  LimitedPriorityLevelConfigurationSchema,
  {
    nominalConcurrencyShares:
      "The level's part of the server's seats (--max-requests-inflight plus --max-mutating-requests-inflight): its shares over the sum of every level's shares, rounded up. 30 when left out; 0 gives the level no seats of its own.",
    limitResponse: "What happens to a request when the level's seats are taken: Queue or Reject (429 at once).",
    lendablePercent: "The percentage of the level's seats other levels may borrow, 0 to 100; 0 when left out.",
    borrowingLimitPercent: 'The most seats the level may borrow from others, as a percentage of its own; no limit when left out.',
  },
  'The seats and queues of a Limited priority level.',
);
describeFields(
  ExemptPriorityLevelConfigurationSchema,
  {
    nominalConcurrencyShares: "The level's shares in the division of seats; 0 when left out.",
    lendablePercent: "The percentage of the level's seats other levels may borrow, 0 to 100; 0 when left out.",
  },
  'The shares of the Exempt priority level.',
);
describeFields(
  LimitResponseSchema,
  {
    type: "Queue (wait in one of the level's queues) or Reject (answer 429 at once). Required.",
    queuing: "The level's queues; required when type is Queue.",
  },
  'What a priority level does with requests beyond its seats.',
);
describeFields(
  QueuingConfigurationSchema,
  {
    queues: 'How many queues the level has; 64 when left out. 1 turns off shuffle sharding.',
    handSize: 'How many queues each flow is dealt, of which it joins the shortest; at most queues. 8 when left out.',
    queueLengthLimit: 'How many requests a queue holds before more are answered 429; 50 when left out.',
  },
  'The fair queues of a priority level.',
);
describeFields(
  PriorityLevelConfigurationStatusSchema,
  { conditions: 'What the API server says of the level.' },
  'What the API server found of a priority level.',
);
