import {
  compileKind,
  configMapDefinition,
  deploymentDefinition,
  endpointSliceDefinition,
  endpointsDefinition,
  fieldErrorToString,
  kindFromCrd,
  leaseDefinition,
  namespaceDefinition,
  podDefinition,
  podDisruptionBudgetDefinition,
  serviceDefinition,
  validatingWebhookConfigurationDefinition,
  type CustomResourceDefinition,
  type KindDefinition,
} from '../index';

// Each case is a body and the field errors Kubernetes 1.32 gives for it, word for word: built-in kinds in
// the words of their hand-written validation (pkg/apis/*/validation, apimachinery's util/validation),
// custom resources in kube-openapi's as apiextensions-apiserver turns them into field errors.

function messages(def: KindDefinition, obj: unknown): string[] {
  const k = compileKind(def);
  const copy = structuredClone(obj);
  k.default(copy);
  return k.validate(copy).map(fieldErrorToString);
}

const a70 = 'a'.repeat(70);
const container = { name: 'app', image: 'busybox' };
const pod = (spec: Record<string, unknown>) => ({ metadata: { name: 'p' }, spec: { containers: [container], ...spec } });
const podWith = (c: Record<string, unknown>) => pod({ containers: [{ ...container, ...c }] });
const service = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web' }) => ({
  metadata,
  spec: { ports: [{ port: 80 }], ...spec },
});

const NAME_PART_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_SLASHES =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const PREFIX_PART =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

describe('built-in kinds speak as Kubernetes 1.32 validation does', () => {
  it.each<[string, KindDefinition, unknown, string[]]>([
    // ValidateObjectMeta with each kind's name rule; ValidateLabels reports keys and values on the map.
    [
      'a Service name and label too long (kubectl create service clusterip <70 chars>)',
      serviceDefinition,
      service({ selector: { app: a70 } }, { name: a70, labels: { app: a70 } }),
      [
        `metadata.name: Invalid value: "${a70}": must be no more than 63 characters`,
        `metadata.labels: Invalid value: "${a70}": must be no more than 63 characters`,
        `spec.selector: Invalid value: "${a70}": must be no more than 63 characters`,
      ],
    ],
    ['a Service name that is not a DNS-1035 label', serviceDefinition, service({}, { name: '1web' }), [`metadata.name: Invalid value: "1web": ${DNS1035}`]],
    ['a Namespace name with a dot', namespaceDefinition, { metadata: { name: 'a.b' } }, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    [
      'label keys: a long name part, two slashes, a bad prefix, a bad value',
      configMapDefinition,
      { metadata: { name: 'c', labels: { [a70]: 'x', 'a/b/c': 'x', 'Ex!/k': 'x', ok: 'a b' } } },
      [
        `metadata.labels: Invalid value: "${a70}": name part must be no more than 63 characters`,
        `metadata.labels: Invalid value: "a/b/c": ${QUALIFIED_NAME_SLASHES}`,
        `metadata.labels: Invalid value: "Ex!/k": ${PREFIX_PART}`,
        `metadata.labels: Invalid value: "a b": ${LABEL_VALUE}`,
      ],
    ],
    [
      'a label key whose name part breaks the regex',
      configMapDefinition,
      { metadata: { name: 'c', labels: { '-x': 'y' } } },
      [`metadata.labels: Invalid value: "-x": ${NAME_PART_REGEX}`],
    ],
    [
      'annotations over 256 KiB and a bad key',
      configMapDefinition,
      { metadata: { name: 'c', annotations: { big: 'x'.repeat(262144), 'Bad Key': 'v' } } },
      [
        `metadata.annotations: Invalid value: "Bad Key": ${NAME_PART_REGEX.replace('name part', 'name part')}`,
        'metadata.annotations: Too long: may not be more than 262144 bytes',
      ],
    ],
    [
      'ConfigMap data keys',
      configMapDefinition,
      { metadata: { name: 'c' }, data: { '..x': '1', 'a b': '2', '.': '3' } },
      [
        `data[..x]: Invalid value: "..x": must not start with '..'`,
        `data[a b]: Invalid value: "a b": ${CONFIG_KEY}`,
        `data[.]: Invalid value: ".": must not be '.'`,
      ],
    ],
    // validateContainerPorts: IsValidPortName, 0 is a missing containerPort, hostPort 0 is unset.
    [
      'container ports',
      podDefinition,
      podWith({
        ports: [
          { containerPort: 70000, hostPort: 0 },
          { containerPort: 0, name: 'Http--' },
          { containerPort: 80, hostPort: 70000, name: 'a-very-long-port-name' },
        ],
      }),
      [
        'spec.containers[0].ports[1].name: Invalid value: "Http--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].ports[1].name: Invalid value: "Http--": must not contain consecutive hyphens',
        'spec.containers[0].ports[1].name: Invalid value: "Http--": must not begin or end with a hyphen',
        'spec.containers[0].ports[2].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].containerPort: Required value',
        'spec.containers[0].ports[2].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'probe ports by number and by name (ValidatePortNumOrName)',
      podDefinition,
      podWith({ livenessProbe: { tcpSocket: { port: 70000 } }, readinessProbe: { httpGet: { port: '8080' } }, startupProbe: { grpc: { port: 0 } } }),
      [
        'spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].readinessProbe.httpGet.port: Invalid value: "8080": must contain at least one letter (a-z)',
        'spec.containers[0].startupProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'a negative count (ValidateNonnegativeField) and a file mode',
      podDefinition,
      pod({ terminationGracePeriodSeconds: -1, volumes: [{ name: 'v', secret: { secretName: 's', defaultMode: 0o1000 } }] }),
      [
        'spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
        'spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0',
      ],
    ],
    [
      'enums listed in Kubernetes order',
      podDefinition,
      pod({
        restartPolicy: 'Sometimes',
        dnsPolicy: 'Other',
        containers: [{ ...container, imagePullPolicy: 'Sometimes', ports: [{ containerPort: 80, protocol: 'ICMP' }] }],
      }),
      [
        'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.dnsPolicy: Unsupported value: "Other": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"',
      ],
    ],
    // validateServicePort: IsValidPortNum, ValidatePortNumOrName for targetPort; the allocator owns nodePort.
    [
      'service ports',
      serviceDefinition,
      service({
        type: 'NodePort',
        ports: [
          { name: 'a', port: 70000, targetPort: 70000, nodePort: 0 },
          { name: 'b', port: 81, targetPort: 'Bad_name' },
        ],
      }),
      [
        'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[1].targetPort: Invalid value: "Bad_name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      ],
    ],
    [
      'service type, IP family policy and session affinity timeout',
      serviceDefinition,
      service({ type: 'Other', ipFamilyPolicy: 'Any', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } }),
      [
        'spec.type: Unsupported value: "Other": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
        'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400',
        'spec.ipFamilyPolicy: Unsupported value: "Any": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
      ],
    ],
    [
      'Endpoints ports',
      endpointsDefinition,
      { metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'Web', port: 70000 }] }] },
      [
        `subsets[0].ports[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        'subsets[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'EndpointSlice ports and address type',
      endpointSliceDefinition,
      { metadata: { name: 's' }, addressType: 'IPv5', ports: [{ port: 0 }] },
      [
        'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"',
        'ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      ],
    ],
    // ValidatePositiveIntOrPercent passes the IntOrString whole, so Go prints its struct.
    [
      'an int-or-percent that is neither',
      deploymentDefinition,
      {
        metadata: { name: 'd' },
        spec: {
          replicas: -1,
          selector: { matchLabels: { app: 'd' } },
          template: { metadata: { labels: { app: 'd' } }, spec: { containers: [container] } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'half', maxUnavailable: -1 } },
        },
      },
      [
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
        `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: ${PERCENT}`,
      ],
    ],
    [
      'a PodDisruptionBudget minAvailable',
      podDisruptionBudgetDefinition,
      { metadata: { name: 'b' }, spec: { minAvailable: '5' } },
      [`spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}: ${PERCENT}`],
    ],
    [
      'a Lease duration',
      leaseDefinition,
      { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0 } },
      ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
    ],
    [
      'a webhook timeout and service port',
      validatingWebhookConfigurationDefinition,
      {
        metadata: { name: 'w' },
        webhooks: [
          {
            name: 'w.example.com',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            timeoutSeconds: 31,
            clientConfig: { service: { namespace: 'default', name: 'hook', port: 70000 } },
          },
        ],
      },
      [
        'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
        'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      ],
    ],
  ])('%s', (_name, def, obj, expected) => {
    expect(messages(def, obj)).toEqual(expected);
  });

  it('accepts what Kubernetes accepts: an unset hostPort and nodePort, a 63-character name, a named target port', () => {
    expect(messages(podDefinition, podWith({ ports: [{ containerPort: 80, hostPort: 0, name: 'http-alt' }] }))).toEqual([]);
    expect(
      messages(serviceDefinition, service({ type: 'NodePort', ports: [{ port: 80, targetPort: 'http-alt', nodePort: 0 }] }, { name: 'a'.repeat(63) })),
    ).toEqual([]);
    expect(messages(configMapDefinition, { metadata: { name: 'c', labels: { [`example.com/${'a'.repeat(63)}`]: 'a'.repeat(63) } } })).toEqual([]);
  });
});

const gadgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer' },
                  port: { type: 'integer', minimum: 1, maximum: 65535 },
                  ratio: { type: 'number', maximum: 1 },
                  big: { type: 'number', maximum: 1000000 },
                  code: { type: 'string', maxLength: 3 },
                  word: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
                  color: { type: 'string', enum: ['red', 'blue'] },
                  when: { type: 'string', format: 'date-time' },
                  items: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', maxLength: 1 } },
                  limits: { type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9]+$' } },
                  step: { type: 'integer', multipleOf: 5 },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('custom resources speak as kube-openapi does', () => {
  const gadget = (spec: Record<string, unknown>, name = 'g') => ({
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name },
    spec: { size: 1, ...spec },
  });
  const def = kindFromCrd(gadgetCrd, 'v1');

  it.each<[string, unknown, string[]]>([
    ['a number over its maximum', gadget({ port: 70000 }), ['spec.port: Invalid value: 70000: spec.port in body should be less than or equal to 65535']],
    ['a number under its minimum', gadget({ port: 0 }), ['spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1']],
    ['a float over its maximum', gadget({ ratio: 1.5 }), ['spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than or equal to 1']],
    [
      'a float bound printed as Go prints a float64',
      gadget({ big: 1000000.5 }),
      ['spec.big: Invalid value: 1.0000005e+06: spec.big in body should be less than or equal to 1e+06'],
    ],
    ['a string too long', gadget({ code: 'abcd' }), ['spec.code: Too long: may not be more than 3 bytes']],
    [
      'a string too short stops at its first failure',
      gadget({ word: 'A' }),
      ['spec.word: Invalid value: "A": spec.word in body should be at least 2 chars long'],
    ],
    ['a pattern', gadget({ word: 'AB' }), ['spec.word: Invalid value: "AB": spec.word in body should match \'^[a-z]+$\'']],
    ['an enum', gadget({ color: 'green' }), ['spec.color: Unsupported value: "green": supported values: "red", "blue"']],
    ['a format', gadget({ when: 'yesterday' }), ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']],
    ['a type', gadget({ size: 'big' }), ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']],
    ['a required field', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: {} }, ['spec.size: Required value']],
    ['too few items', gadget({ items: [] }), ['spec.items: Invalid value: 0: spec.items in body should have at least 1 items']],
    [
      'too many items, and an item too long',
      gadget({ items: ['a', 'bb', 'c'] }),
      ['spec.items[1]: Too long: may not be more than 1 bytes', 'spec.items: Too many: 3: must have at most 2 items'],
    ],
    [
      'a map value, its key joined with a dot',
      gadget({ limits: { cpu: 'lots' } }),
      ['spec.limits.cpu: Invalid value: "lots": spec.limits.cpu in body should match \'^[0-9]+$\''],
    ],
    ['a multiple', gadget({ step: 7 }), ['spec.step: Invalid value: 7: spec.step in body should be a multiple of 5']],
    // The custom resource's ObjectMeta is checked by Kubernetes' own rules (NameIsDNSSubdomain).
    [
      'metadata checked as ObjectMeta',
      gadget({}, 'x'.repeat(254)),
      [`metadata.name: Invalid value: "${'x'.repeat(254)}": must be no more than 253 characters`],
    ],
  ])('%s', (_name, obj, expected) => {
    expect(messages(def, obj)).toEqual(expected);
  });
});

describe('quantities', () => {
  it('refuses text that is not a quantity as Kubernetes does when it decodes the body (a type error, so 400)', () => {
    const k = compileKind(podDefinition);
    const obj = podWith({ resources: { limits: { cpu: 'lots' } } });
    k.default(obj);
    // (The request is defaulted from the limit, so it fails alike.)
    expect(k.validate(obj)[0]).toEqual({
      type: 'FieldValueTypeInvalid',
      field: 'spec.containers[0].resources.limits[cpu]',
      badValue: 'lots',
      detail: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    });
  });
});
