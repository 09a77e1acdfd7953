import type { JsonSchema } from '../../json-schema';

// A cut-down Pod/Deployment schema carrying the markers the built-in kinds carry, used by the
// patch specs. It mixes explicit patch markers, list-type-only markers, $ref and allOf on purpose.

const str: JsonSchema = { type: 'string' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };
const quantity: JsonSchema = { 'x-svc-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

const container: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    command: { type: 'array', items: str, 'x-svc-list-type': 'atomic' },
    args: { type: 'array', items: str },
    ports: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['containerPort', 'protocol'],
      'x-svc-patch-strategy': 'merge',
      'x-svc-patch-merge-key': 'containerPort',
      items: {
        type: 'object',
        properties: { name: str, containerPort: { type: 'integer' }, protocol: str },
      },
    },
    env: {
      type: 'array',
      'x-svc-patch-strategy': 'merge',
      'x-svc-patch-merge-key': 'name',
      items: { $ref: '#/$defs/EnvVar' },
    },
    // Only the list-type markers: strategic merge patch falls back to merging on mountPath.
    volumeMounts: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['mountPath'],
      items: { type: 'object', properties: { name: str, mountPath: str, readOnly: { type: 'boolean' } } },
    },
    resources: {
      type: 'object',
      properties: {
        limits: { type: 'object', additionalProperties: quantity },
        requests: { type: 'object', additionalProperties: quantity },
      },
    },
    securityContext: {
      type: 'object',
      'x-svc-patch-strategy': 'replace',
      properties: { runAsUser: { type: 'integer' }, runAsNonRoot: { type: 'boolean' } },
    },
  },
};

const volume: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    hostPath: { type: 'object', properties: { path: str, type: str } },
    emptyDir: { type: 'object', properties: { medium: str, sizeLimit: quantity } },
    configMap: { type: 'object', properties: { name: str, optional: { type: 'boolean' } } },
  },
};

export const workloadSchema: JsonSchema = {
  type: 'object',
  $defs: {
    EnvVar: {
      type: 'object',
      properties: { name: str, value: str, valueFrom: { type: 'object', properties: { fieldRef: { type: 'object' } } } },
    },
    Container: container,
  },
  properties: {
    apiVersion: str,
    kind: str,
    metadata: {
      type: 'object',
      properties: {
        name: str,
        namespace: str,
        labels: stringMap,
        annotations: stringMap,
        finalizers: { type: 'array', items: str, 'x-svc-list-type': 'set', 'x-svc-patch-strategy': 'merge' },
        ownerReferences: {
          type: 'array',
          'x-svc-list-type': 'map',
          'x-svc-list-map-keys': ['uid'],
          'x-svc-patch-strategy': 'merge',
          'x-svc-patch-merge-key': 'uid',
          items: { type: 'object', properties: { uid: str, name: str, kind: str } },
        },
      },
    },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        strategy: {
          type: 'object',
          'x-svc-patch-strategy': 'retainKeys',
          properties: {
            type: str,
            rollingUpdate: { type: 'object', properties: { maxSurge: quantity, maxUnavailable: quantity } },
          },
        },
        containers: {
          type: 'array',
          'x-svc-patch-strategy': 'merge',
          'x-svc-patch-merge-key': 'name',
          items: { $ref: '#/$defs/Container' },
        },
        initContainers: {
          allOf: [
            { type: 'array', items: { $ref: '#/$defs/Container' } },
            { 'x-svc-patch-strategy': 'merge', 'x-svc-patch-merge-key': 'name' },
          ],
        },
        tolerations: {
          type: 'array',
          'x-svc-list-type': 'atomic',
          items: { type: 'object', properties: { key: str, operator: str, effect: str } },
        },
        volumes: {
          type: 'array',
          'x-svc-patch-strategy': 'merge,retainKeys',
          'x-svc-patch-merge-key': 'name',
          items: volume,
        },
        nodeSelector: { ...stringMap, 'x-svc-map-type': 'atomic' },
        extra: { type: 'object', 'x-svc-preserve-unknown-fields': true },
      },
    },
  },
};
