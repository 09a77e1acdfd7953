import { Type } from '@sinclair/typebox';
import { defineResource, type ResourceType } from '@svc/runtime';

/**
 * The Greeting resource type, defined once: its TypeScript type, the typed resource the client and
 * `@Reconciler` take, and the CustomResourceDefinition (crd.yaml is this, printed by
 * `node examples/configmap-operator/run.js --print-crd`) all come from here.
 */
export const greetingType = defineResource({
  group: 'demo.svc.io',
  kind: 'Greeting',
  shortNames: ['gr'],
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({
        message: Type.String({ minLength: 1, description: 'What every ConfigMap of this Greeting says.' }),
        copies: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'How many ConfigMaps say it.' })),
      }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the spec the ConfigMaps match.' })),
        configMaps: Type.Optional(Type.Integer({ description: 'How many ConfigMaps say the message now.' })),
      }),
      printerColumns: [
        { name: 'Message', type: 'string', jsonPath: '.spec.message' },
        { name: 'Copies', type: 'integer', jsonPath: '.spec.copies' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.configMaps' },
      ],
    },
  },
});

/** The object the API server stores for `kind: Greeting`. */
export type Greeting = ResourceType<typeof greetingType>;

/** `greetings` in `demo.svc.io/v1`, typed. */
export const greetings = greetingType.resource;
