// The controller manager, the scheduler and the node agent, started without `--svc-api-content-type`
// or the agent's `contentType`, reconcile a Deployment to a running pod with Kubernetes' protobuf on the
// wire, as the API server's audit log records it: every request they make on a built-in kind with a
// message sends and reads protobuf, patches excepted (JSON by protocol). A scheduler told
// `application/json` speaks JSON.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme } from '@svc/api';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { hasProtobufMessage } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`the control plane on protobuf is skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const ANNOTATION_SENT = 'audit.svc.io/request-content-type';
const ANNOTATION_ANSWERED = 'audit.svc.io/response-content-type';

// Metadata for everything (the wire annotations are on every event); the body of a ReplicaSet the
// controller manager creates, to see that a protobuf body is logged as the object it carries.
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Request
  verbs: [create]
  resources: [{ group: apps, resources: [replicasets] }]
- level: Metadata
`;

interface AuditLine {
  stage: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user: { username: string };
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string; apiVersion?: string; namespace?: string; name?: string };
  responseStatus?: { code: number };
  annotations?: Record<string, string>;
  requestObject?: Record<string, unknown>;
}

/** Who made a request: the three processes have identities of their own. */
function who(line: AuditLine): string {
  if (line.userAgent?.startsWith('kubectl')) return 'kubectl';
  switch (line.user.username) {
    case 'system:kube-controller-manager':
      return 'controller-manager';
    case 'system:kube-scheduler':
      return 'scheduler';
    case 'svc-admin':
      return 'node-agent';
    default:
      return line.user.username;
  }
}

const scheme = builtinScheme();

/** Whether the request was on a built-in kind that has a protobuf message (custom resources and CRDs have none). */
function onProtobufKind(line: AuditLine): boolean {
  const ref = line.objectRef;
  if (!ref?.resource || !ref.apiVersion) return false;
  const def = scheme.byResource({ group: ref.apiGroup ?? '', version: ref.apiVersion, resource: ref.resource });
  return def !== undefined && hasProtobufMessage(ref.apiGroup ? `${ref.apiGroup}/${ref.apiVersion}` : ref.apiVersion, def.kind);
}

/** What went over the wire, in one line: who, verb, resource, the body's and the answer's media types. */
function wire(line: AuditLine): string {
  const ref = line.objectRef ?? {};
  const resource = `${ref.resource ?? line.requestURI}${ref.subresource ? `/${ref.subresource}` : ''}`;
  return `${who(line)} ${line.verb} ${resource} ${line.responseStatus?.code ?? ''} sent=${line.annotations?.[ANNOTATION_SENT] ?? '-'} answered=${line.annotations?.[ANNOTATION_ANSWERED] ?? '-'}`;
}

/** A request that did not speak protobuf where it should have: a JSON body that is not a patch, or an answer that is not protobuf. */
function notProtobuf(line: AuditLine): boolean {
  const sent = line.annotations?.[ANNOTATION_SENT];
  const answered = line.annotations?.[ANNOTATION_ANSWERED];
  // A metadata-only read is JSON by protocol (as=PartialObjectMetadata).
  if (answered?.includes('as=PartialObjectMetadata')) return false;
  if (sent !== undefined && line.verb !== 'patch' && !sent.startsWith(PROTOBUF)) return true;
  return answered !== undefined && !answered.startsWith(PROTOBUF);
}

describeWithRuntime('the control plane on Kubernetes protobuf', () => {
  let dir: string;
  let log: string;
  let cluster: NodeCluster;
  let manager: ControllerManagerProcess | undefined;
  let scheduler: SchedulerProcess | undefined;
  const ns = 'wire';
  const lines = (): AuditLine[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AuditLine);
  const env = () => cluster.env();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-control-plane-protobuf-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    log = join(dir, 'audit.log');
    // Every process on its default content type.
    cluster = await startNodeCluster({ apiserverArgs: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`] });
    const identities = new KubectlIdentities(cluster.apiserver, dir);
    const [managerIdentity, schedulerIdentity] = await Promise.all([
      identities.withCertificate('manager', 'system:kube-controller-manager'),
      identities.withCertificate('scheduler', 'system:kube-scheduler'),
    ]);
    [manager, scheduler] = await Promise.all([
      startControllerManagerProcess(cluster.apiserver, [`--svcconfig=${managerIdentity}`], 60_000),
      startSchedulerProcess(cluster.apiserver, [`--svcconfig=${schedulerIdentity}`], 60_000),
    ]);
    await kubectl(['create', 'namespace', ns], env());
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([manager?.stop(), scheduler?.stop()]);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('reconciles a Deployment to a running pod with every built-in object on the wire in protobuf', async () => {
    await kubectl(['create', 'deployment', 'web', '-n', ns, '--image=busybox:1.36', '--', 'sleep', '3600'], env());
    await eventually(
      async () => {
        const deployment = JSON.parse((await kubectl(['get', 'deployment', 'web', '-n', ns, '-o', 'json'], env())).stdout) as {
          status?: { availableReplicas?: number };
        };
        expect(deployment.status?.availableReplicas).toBe(1);
      },
      60_000,
      250,
    );
    // A watch is logged when its stream starts (and again only when it ends).
    const seen = lines().filter((l) => (l.verb === 'watch' ? l.stage === 'ResponseStarted' : l.stage === 'ResponseComplete'));
    const processes = seen.filter((l) => ['controller-manager', 'scheduler', 'node-agent'].includes(who(l)) && l.userAgent?.startsWith('svc-client'));

    // Each process did its part, its bodies in protobuf.
    const did = (by: string, verb: string, resource: string, subresource?: string) =>
      processes.filter((l) => who(l) === by && l.verb === verb && l.objectRef?.resource === resource && l.objectRef.subresource === subresource);
    const created = did('controller-manager', 'create', 'replicasets');
    expect(created.map((l) => l.annotations?.[ANNOTATION_SENT])).toEqual([PROTOBUF]);
    // The audit log shows the object the protobuf carried, as Kubernetes logs it.
    expect(created[0].requestObject).toMatchObject({ kind: 'ReplicaSet', spec: { template: { spec: { containers: [{ image: 'busybox:1.36' }] } } } });
    expect(did('scheduler', 'create', 'pods', 'binding').map((l) => l.annotations?.[ANNOTATION_SENT])).toEqual([PROTOBUF]);
    const podStatus = [...did('node-agent', 'update', 'pods', 'status'), ...did('node-agent', 'patch', 'pods', 'status')];
    expect(podStatus.length).toBeGreaterThan(0);
    // Watches too: every process's watch streams are protobuf frames.
    for (const by of ['controller-manager', 'scheduler', 'node-agent']) {
      const watches = processes.filter((l) => who(l) === by && l.verb === 'watch' && onProtobufKind(l));
      expect([by, watches.length > 0]).toEqual([by, true]);
    }

    // And nothing on a built-in kind went as JSON, but the patch bodies.
    const onWire = processes.filter(onProtobufKind);
    expect(onWire.length).toBeGreaterThan(20);
    expect(onWire.filter(notProtobuf).map(wire)).toEqual([]);
    expect(onWire.filter((l) => l.verb === 'watch').every((l) => l.annotations?.[ANNOTATION_ANSWERED] === `${PROTOBUF};stream=watch`)).toBe(true);
  }, 90_000);

  it('leaves a settled Deployment alone: protobuf reads give the controllers nothing to write again', async () => {
    const writes = () =>
      lines().filter(
        (l) =>
          l.stage === 'ResponseComplete' &&
          who(l) === 'controller-manager' &&
          ['create', 'update', 'patch', 'delete'].includes(l.verb) &&
          ['deployments', 'replicasets', 'pods'].includes(l.objectRef?.resource ?? ''),
      ).length;
    const before = writes();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(writes()).toBe(before);
  }, 30_000);

  it('speaks JSON when told to: a scheduler started with --svc-api-content-type=application/json binds in JSON', async () => {
    await scheduler?.stop();
    const identities = new KubectlIdentities(cluster.apiserver, dir);
    scheduler = await startSchedulerProcess(
      cluster.apiserver,
      [`--svcconfig=${await identities.withCertificate('scheduler', 'system:kube-scheduler')}`, '--svc-api-content-type=application/json'],
      60_000,
    );
    const bindingsBefore = lines().filter((l) => who(l) === 'scheduler' && l.objectRef?.subresource === 'binding').length;
    await kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=2'], env());
    await eventually(
      async () => expect(lines().filter((l) => who(l) === 'scheduler' && l.objectRef?.subresource === 'binding').length).toBeGreaterThan(bindingsBefore),
      30_000,
      250,
    );
    const binding = lines().filter((l) => l.stage === 'ResponseComplete' && who(l) === 'scheduler' && l.objectRef?.subresource === 'binding');
    expect(binding[binding.length - 1].annotations).toMatchObject({ [ANNOTATION_SENT]: 'application/json', [ANNOTATION_ANSWERED]: 'application/json' });
  }, 60_000);
});
