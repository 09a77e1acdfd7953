import {
  configMapDefinition,
  deploymentDefinition,
  goJsonDecodeError,
  kindDecodeError,
  kindFromCrd,
  namespaceDefinition,
  podDefinition,
  secretDefinition,
  serviceDefinition,
  type CustomResourceDefinition,
  type KindDefinition,
} from '../index';

// What Kubernetes 1.32's JSON decoder (Go 1.23's encoding/json as sigs.k8s.io/json carries it) says of
// a built-in kind's body with a value of the wrong type. The expected strings are Kubernetes' own, as
// clusters print them and Kubernetes' tests assert them.

function decode(def: KindDefinition, body: unknown): string | undefined {
  return goJsonDecodeError(def.schema, def.kind, def.version, body);
}

const container = (extra: Record<string, unknown>) => ({ name: 'app', image: 'busybox', ...extra });
const podWith = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });
const deploymentWith = (podSpec: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: podSpec }, ...spec },
});

describe('goJsonDecodeError', () => {
  it.each<[string, KindDefinition, unknown, string]>([
    [
      'a string into an int32',
      deploymentDefinition,
      deploymentWith({ containers: [container({})] }, { replicas: 'three' }),
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      'an object into a list of structs',
      podDefinition,
      podWith({ containers: {} }),
      'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container',
    ],
    [
      'an object into a list, deep in a template: the whole path of field names',
      deploymentDefinition,
      deploymentWith({ containers: { name: 'app' } }),
      'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    ],
    [
      'a number into a string inside a list: no indexes in the path, the innermost struct named',
      podDefinition,
      podWith({ containers: [container({ env: [{ name: 'A', value: 5 }] })] }),
      'json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string',
    ],
    [
      'a bool into a map value: the map key is not in the path',
      deploymentDefinition,
      deploymentWith({ containers: [container({})], nodeSelector: { 'ingress-ready': true } }),
      'json: cannot unmarshal bool into Go struct field PodSpec.spec.template.spec.nodeSelector of type string',
    ],
    [
      'an array into a map',
      deploymentDefinition,
      deploymentWith({ containers: [container({})], nodeSelector: ['a'] }),
      'json: cannot unmarshal array into Go struct field PodSpec.spec.template.spec.nodeSelector of type map[string]string',
    ],
    [
      'a string into a struct, as list items',
      deploymentDefinition,
      deploymentWith({ containers: [container({})], imagePullSecrets: ['pull-secret'] }),
      'json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.imagePullSecrets of type v1.LocalObjectReference',
    ],
    [
      'a string into an int64',
      podDefinition,
      podWith({ containers: [container({})], terminationGracePeriodSeconds: '30' }),
      'json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64',
    ],
    [
      'a number into ObjectMeta labels',
      deploymentDefinition,
      { ...deploymentWith({ containers: [container({})] }), metadata: { name: 'd', labels: 5 } },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    ],
    [
      'a number into ObjectMeta itself',
      configMapDefinition,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: 5 },
      'json: cannot unmarshal number into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    ],
    [
      'a number into a ConfigMap value',
      configMapDefinition,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 5 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'a number into bytes',
      secretDefinition,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 5 } },
      'json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
    ],
    [
      "text that is not base64 into bytes: Go's base64 error, with no field context",
      secretDefinition,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: 'not base64!' } },
      'illegal base64 data at input byte 3',
    ],
    [
      'a fraction into an int32: the number is quoted',
      podDefinition,
      podWith({ containers: [container({ ports: [{ containerPort: 80.5 }] })] }),
      'json: cannot unmarshal number 80.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    ],
    [
      'an int32 overflow',
      deploymentDefinition,
      deploymentWith({ containers: [container({})] }, { replicas: 3_000_000_000 }),
      'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      'a number into a bool',
      podDefinition,
      podWith({ containers: [container({ stdin: 1 })] }),
      'json: cannot unmarshal number into Go struct field Container.spec.containers.stdin of type bool',
    ],
    [
      'a string into a volume source',
      podDefinition,
      podWith({ containers: [container({})], volumes: [{ name: 'config', configMap: 'settings' }] }),
      'json: cannot unmarshal string into Go struct field Volume.spec.volumes.configMap of type v1.ConfigMapVolumeSource',
    ],
    [
      'a number into an env source key',
      podDefinition,
      podWith({ containers: [container({ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 1 } } }] })] }),
      'json: cannot unmarshal number into Go struct field SecretKeySelector.spec.containers.env.valueFrom.secretKeyRef.key of type string',
    ],
    [
      "a kind's inline spec is <Kind>Spec",
      namespaceDefinition,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: 'kubernetes' } },
      // Go's element type is the named v1.FinalizerName, which the schema does not carry.
      'json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []string',
    ],
  ])('%s', (_, def, body, expected) => {
    expect(decode(def, body)).toBe(expected);
  });

  it('keeps the first error in document order, as Go does, and goes on past it', () => {
    const body = podWith({ terminationGracePeriodSeconds: 'x', containers: [container({ stdin: 'y' })] });
    expect(decode(podDefinition, body)).toBe('json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64');
  });

  it("a type with a decoder of its own stops at once with that decoder's words, ahead of an earlier type error", () => {
    const quantity = podWith({ terminationGracePeriodSeconds: 'x', containers: [container({ resources: { limits: { cpu: 'lots' } } })] });
    expect(decode(podDefinition, quantity)).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(decode(podDefinition, podWith({ containers: [container({ resources: { limits: { cpu: true } } })] }))).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    expect(decode(podDefinition, podWith({ containers: [container({ resources: { limits: { memory: '1Gii' } } })] }))).toBe(
      "unable to parse quantity's suffix",
    );
    // IntOrString decodes an int32 through encoding/json itself: Go's words with no field context.
    const service = (targetPort: unknown) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } });
    expect(decode(serviceDefinition, service(true))).toBe('json: cannot unmarshal bool into Go value of type int32');
    expect(decode(serviceDefinition, service(8.5))).toBe('json: cannot unmarshal number 8.5 into Go value of type int32');
    expect(decode(serviceDefinition, service({}))).toBe('json: cannot unmarshal object into Go value of type int32');
    // metav1.Time reads a string first.
    expect(decode(configMapDefinition, { metadata: { name: 'c', creationTimestamp: 5 } })).toBe('json: cannot unmarshal number into Go value of type string');
  });

  it('finds nothing in a body Go decodes: well-typed values, nulls, unknown fields, any JSON where the schema keeps anything', () => {
    expect(
      decode(deploymentDefinition, deploymentWith({ containers: [container({ resources: { limits: { cpu: 1, memory: '1Gi' } } })] }, { replicas: 3 })),
    ).toBeUndefined();
    expect(decode(podDefinition, podWith({ containers: [container({ ports: null, bogus: [1, 2] })], nodeSelector: null }))).toBeUndefined();
    expect(decode(serviceDefinition, { spec: { ports: [{ port: 80, targetPort: 'http' }] } })).toBeUndefined();
    // Values that break other rules (a name too long, an unsupported enum value) are for validation, not decoding.
    expect(decode(podDefinition, podWith({ restartPolicy: 'Sometimes', containers: [container({ name: 'a'.repeat(100) })] }))).toBeUndefined();
  });

  it('a custom resource: only its metadata is decoded into ObjectMeta, the path starting inside it', () => {
    const crd: CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { port: { type: 'integer' } } } } } },
          },
        ],
      },
    };
    const gadget = kindFromCrd(crd, 'v1');
    const body = (metadata: unknown, spec: unknown = {}) => ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata, spec });
    expect(kindDecodeError(gadget, body({ name: 'g', labels: 5 }))).toBe(
      'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type map[string]string',
    );
    expect(kindDecodeError(gadget, body(5))).toBe('json: cannot unmarshal number into Go value of type v1.ObjectMeta');
    // The rest of a custom resource is unstructured JSON: a wrong type there is its schema's to report.
    expect(kindDecodeError(gadget, body({ name: 'g' }, { port: 'eighty' }))).toBeUndefined();
    expect(kindDecodeError(deploymentDefinition, deploymentWith({ containers: [container({})] }, { replicas: 'x' }))).toBe(
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });
});
