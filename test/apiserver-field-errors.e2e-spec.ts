import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { type KubectlResult, runKubectl } from './support/kubectl-run';

// kubectl 1.32 against the real svc-apiserver process: each refused write prints the field errors a
// Kubernetes 1.32 server gives for the same input, word for word, since people and tools match them.

let server: ApiServerProcess;

beforeAll(async () => {
  server = await startApiServerProcess();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function kubectl(...args: string[]): Promise<KubectlResult> {
  return runKubectl(args, server.kubectlEnv);
}

async function refused(...args: string[]): Promise<string> {
  const res = await kubectl(...args);
  if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but should have failed:\n${res.stdout}`);
  return res.stderr;
}

async function manifest(name: string, text: string): Promise<string> {
  const file = join(server.dir, name);
  await writeFile(file, text);
  return file;
}

const a70 = 'a'.repeat(70);

describe('field errors through kubectl', () => {
  it('create service with a 70-character name: the name, label and selector rules of Kubernetes', async () => {
    const stderr = await refused('create', 'service', 'clusterip', a70, '--tcp=80');
    const tooLong = `Invalid value: "${a70}": must be no more than 63 characters`;
    expect(stderr).toBe(
      `error: failed to create ClusterIP service: Service "${a70}" is invalid: [metadata.name: ${tooLong}, metadata.labels: ${tooLong}, spec.selector: ${tooLong}]\n`,
    );
  });

  it('label with a key whose name part is 70 characters, and with two slashes', async () => {
    expect((await kubectl('create', 'configmap', 'labelled', '--from-literal=a=b')).code).toBe(0);
    expect(await refused('label', 'configmap', 'labelled', `${a70}=x`)).toBe(
      `The ConfigMap "labelled" is invalid: metadata.labels: Invalid value: "${a70}": name part must be no more than 63 characters\n`,
    );
    expect(await refused('label', 'configmap', 'labelled', 'a/b/c=x')).toBe(
      'The ConfigMap "labelled" is invalid: metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, ' +
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " +
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')\n",
    );
  });

  it('create -f with annotations over 256 KiB', async () => {
    const file = await manifest(
      'annotated.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: annotated\n  annotations:\n    big: "${'x'.repeat(262144)}"\n`,
    );
    expect(await refused('create', '-f', file)).toBe(
      'The ConfigMap "annotated" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes\n',
    );
  });

  it('create -f with a container port out of range', async () => {
    const file = await manifest(
      'ported.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: ported\nspec:\n  containers:\n  - name: app\n    image: busybox\n    ports:\n    - containerPort: 70000\n',
    );
    expect(await refused('create', '-f', file)).toBe(
      'The Pod "ported" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n',
    );
  });

  // Kubernetes walks the resource maps in Go's random order; ours are sorted by field path.
  it('create -f with requests above limits, and an extended resource requested without its limit', async () => {
    const file = await manifest(
      'greedy.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: greedy\nspec:\n  containers:\n  - name: app\n    image: busybox\n    resources:\n' +
        '      requests: {cpu: "1.5", memory: 1024Mi, example.com/gpu: "1"}\n      limits: {cpu: 500m, memory: 512Mi}\n',
    );
    expect(await refused('create', '-f', file)).toBe(
      'The Pod "greedy" is invalid: \n' +
        '* spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 500m\n' +
        '* spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources\n' +
        '* spec.containers[0].resources.requests: Invalid value: "1Gi": must be less than or equal to memory limit of 512Mi\n',
    );
  });

  it('create -f with service ports out of range: the port, and the target port it defaults to', async () => {
    const file = await manifest(
      'ranged.yaml',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: ranged\nspec:\n  ports:\n  - name: a\n    port: 70000\n  - name: b\n    port: 80\n    targetPort: Bad_name\n',
    );
    expect(await refused('create', '-f', file)).toBe(
      'The Service "ranged" is invalid: \n' +
        '* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n' +
        '* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n' +
        '* spec.ports[1].targetPort: Invalid value: "Bad_name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)\n',
    );
  });

  it("a custom resource's schema failure in kube-openapi's words", async () => {
    const crd = await manifest(
      'gadgets.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              port: {type: integer, maximum: 65535}
`,
    );
    expect((await kubectl('create', '-f', crd)).code).toBe(0);
    const gadget = await manifest('gadget.yaml', 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  port: 70000\n');
    // The CRD's resource is served once its names are accepted; kubectl finds it through discovery.
    let stderr = '';
    for (let attempt = 0; attempt < 50; attempt++) {
      stderr = await refused('create', '-f', gadget);
      if (!/no matches for kind|the server could not find/.test(stderr)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(stderr).toBe('The Gadget "g" is invalid: spec.port: Invalid value: 70000: spec.port in body should be less than or equal to 65535\n');
    // A custom resource's metadata alone goes through ObjectMeta's Go struct: Go's words, the path inside it.
    // (kubectl refuses such a manifest itself; --raw sends it as it is.)
    const labelled = await manifest(
      'labelled-gadget.json',
      JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'l', labels: 5 } }),
    );
    expect(await refused('create', '--raw', '/apis/example.com/v1/namespaces/default/gadgets', '-f', labelled)).toBe(
      'Error from server (BadRequest): Gadget in version "v1" cannot be handled as a Gadget: ' +
        'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type map[string]string\n',
    );
  });

  it("apply -f and create -f of a field of the wrong type: Go's JSON decoder's words, as a 400", async () => {
    const deployment = await manifest(
      'replicas.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: typed\nspec:\n  replicas: three\n  selector:\n    matchLabels: {app: typed}\n' +
        '  template:\n    metadata:\n      labels: {app: typed}\n    spec:\n      containers: [{name: app, image: busybox}]\n',
    );
    expect(await refused('apply', '-f', deployment)).toBe(
      `Error from server (BadRequest): error when creating "${deployment}": Deployment in version "v1" cannot be handled as a Deployment: ` +
        'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32\n',
    );
    const pod = await manifest(
      'containers.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: typed\nspec:\n  containers:\n    name: app\n    image: busybox\n',
    );
    expect(await refused('create', '-f', pod)).toBe(
      `Error from server (BadRequest): error when creating "${pod}": Pod in version "v1" cannot be handled as a Pod: ` +
        'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container\n',
    );
  });
});
