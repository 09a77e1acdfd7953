import type { JsonSchema } from '../../json-schema';
import { JsonObject } from '../../patch';

// A Deployment schema with the markers Kubernetes' apps/v1 types carry, cut down to what the
// field-ownership specs touch. Metadata is left loose on purpose: ObjectMeta's markers apply anyway.

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };
const intOrString: JsonSchema = { 'x-svc-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

const labelSelector: JsonSchema = {
  type: 'object',
  'x-svc-map-type': 'atomic',
  properties: {
    matchLabels: stringMap,
    matchExpressions: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, values: { type: 'array', items: str } } } },
  },
};

const container: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    imagePullPolicy: str,
    command: { type: 'array', items: str },
    args: { type: 'array', items: str },
    env: {
      type: 'array',
      'x-svc-patch-strategy': 'merge',
      'x-svc-patch-merge-key': 'name',
      items: { type: 'object', properties: { name: str, value: str } },
    },
    ports: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['containerPort', 'protocol'],
      'x-svc-patch-strategy': 'merge',
      'x-svc-patch-merge-key': 'containerPort',
      items: {
        type: 'object',
        properties: { name: str, containerPort: int, protocol: { type: 'string', default: 'TCP' } },
      },
    },
    resources: {
      type: 'object',
      properties: {
        limits: { type: 'object', additionalProperties: intOrString },
        requests: { type: 'object', additionalProperties: intOrString },
      },
    },
    volumeMounts: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['mountPath'],
      items: { type: 'object', properties: { name: str, mountPath: str, readOnly: { type: 'boolean' } } },
    },
    terminationMessagePath: str,
    terminationMessagePolicy: str,
  },
};

const podSpec: JsonSchema = {
  type: 'object',
  properties: {
    containers: { type: 'array', 'x-svc-patch-strategy': 'merge', 'x-svc-patch-merge-key': 'name', items: { $ref: '#/$defs/Container' } },
    initContainers: {
      allOf: [
        { type: 'array', items: { $ref: '#/$defs/Container' } },
        { 'x-svc-patch-strategy': 'merge', 'x-svc-patch-merge-key': 'name' },
      ],
    },
    tolerations: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, value: str, effect: str } } },
    nodeSelector: { ...stringMap, 'x-svc-map-type': 'atomic' },
    dnsPolicy: str,
    restartPolicy: str,
    schedulerName: str,
    terminationGracePeriodSeconds: int,
    securityContext: { type: 'object', properties: { runAsUser: int, runAsNonRoot: { type: 'boolean' } } },
  },
};

export const deploymentSchema: JsonSchema = {
  type: 'object',
  $defs: { Container: container, PodSpec: podSpec },
  properties: {
    apiVersion: str,
    kind: str,
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: int,
        minReadySeconds: int,
        revisionHistoryLimit: int,
        progressDeadlineSeconds: int,
        paused: { type: 'boolean' },
        selector: labelSelector,
        strategy: {
          type: 'object',
          properties: {
            type: str,
            rollingUpdate: { type: 'object', properties: { maxSurge: intOrString, maxUnavailable: intOrString } },
          },
        },
        template: {
          type: 'object',
          properties: { metadata: { type: 'object', properties: { labels: stringMap, annotations: stringMap } }, spec: { $ref: '#/$defs/PodSpec' } },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        replicas: int,
        readyReplicas: int,
        conditions: {
          type: 'array',
          'x-svc-patch-strategy': 'merge',
          'x-svc-patch-merge-key': 'type',
          items: { type: 'object', properties: { type: str, status: str, reason: str } },
        },
      },
    },
  },
};

/**
 * The JSON of Go's zero `apps/v1.Deployment`: the struct fields that always exist there. Passed
 * as `emptyObject`, it makes a create's entry match what Kubernetes writes, `"."` markers and all.
 */
export const deploymentZeroValue: JsonObject = {
  metadata: { creationTimestamp: null },
  spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} },
  status: {},
};
