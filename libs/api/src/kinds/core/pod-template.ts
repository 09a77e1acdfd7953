import { Type, type Static } from '@sinclair/typebox';
import { describeFields } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from './pod-spec';

export const PodTemplateSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'v1.' })),
    kind: Type.Optional(Type.String({ description: 'PodTemplate.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    template: Type.Optional(PodTemplateSpecSchema),
  },
  { description: 'A pod described for others to make copies of; nothing runs it by itself.' },
);
export type PodTemplate = Static<typeof PodTemplateSchema>;
export type PodTemplateList = List<PodTemplate>;

// What `kubectl explain` says of the field, in this project's words.
describeFields(PodTemplateSchema, { template: 'The pod: its labels, annotations and spec.' });
