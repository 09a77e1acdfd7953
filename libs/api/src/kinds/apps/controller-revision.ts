import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, Int64 } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

export const ControllerRevisionSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'apps/v1.' })),
    kind: Type.Optional(Type.String({ description: 'ControllerRevision.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    data: Type.Optional(
      FreeForm({
        description:
          'The state the revision records: for a StatefulSet or DaemonSet, a patch with its pod template. Any JSON object; it cannot change once written.',
      }),
    ),
    revision: Int64({ minimum: 0, description: 'The number of the revision among those of its owner; the highest is the newest.' }),
  },
  {
    description:
      "An immutable snapshot of a workload's state, kept by StatefulSets and DaemonSets (one per template they have run) for rollbacks and to tell old pods from new.",
  },
);
export type ControllerRevision = Static<typeof ControllerRevisionSchema>;
export type ControllerRevisionList = List<ControllerRevision>;
