import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node, Pod, Service } from '@svc/api';
import { quantityMilliValue, quantityValue } from '@svc/api';
import { BUILTIN_RESOURCES, TokenBucket, type Client } from '@svc/client';
import type { CriClient } from '@svc/cri';
import { listerWatcherFor, SharedInformer, silentInformerLogger } from '@svc/informers';
import { errorMessage, isConflict, isNotFound } from '@svc/machinery';
import { EventRecorder } from '@svc/runtime';
import { parseDuration } from '@svc/options';
import type { NodeAgentConfiguration } from './config/node-agent-configuration';
import { ImageManager, type CredentialLookup } from './images/image-manager';
import { ContainerLogManager } from './logs/container-log-manager';
import { DEFAULT_RESOLV_CONF, resolvConfProblem } from './containers/pod-dns';
import { memInfo } from './node/host-facts';
import { NodeReporter, type NodeReporterOptions } from './node/node-reporter';
import { ConfigObjects } from './objects/config-objects';
import { KeyedBackoff } from './keyed-backoff';
import { PodManager } from './pods/pod-manager';
import type { PodStartMetrics } from './pods/pod-start-metrics';
import type { PodEventType, PodWorkerContext } from './pods/pod-worker-context';
import { ProbeManager } from './probes/probe-manager';
import { isMirrorPod, isStaticPod } from './static/static-pod-files';
import { StaticPodSource } from './static/static-pod-source';
import { apiServerTokenIssuer, ServiceAccountTokenManager } from './volumes/service-account-token-manager';
import { VolumeManager } from './volumes/volume-manager';
import type { ClaimReader } from './volumes/claim-volumes';
import { LocalPathProvisioner } from './volumes/local-path-provisioner';
import { LOCAL_PATH_PROVISIONER } from './volumes/local-path-volumes';

export interface NodeAgentSettings {
  config: NodeAgentConfiguration;
  nodeName: string;
  nodeIPs: string[];
  rootDir: string;
  agentVersion: string;
  /** The port the server actually listens on (reported in the Node's daemon endpoints). */
  port: number;
  credentials: CredentialLookup;
  /** Where pod start-up time goes (the CRI client reports its calls to it too). */
  startMetrics: PodStartMetrics;
  /** The local path provisioner: on unless turned off, making volumes in `baseDir` (`<root dir>/local-path-volumes` by default). */
  localPath?: { enabled: boolean; baseDir?: string };
  log: (message: string) => void;
}

/** How long a container's creation waits for the first list of Services. */
const SERVICES_SYNC_MS = 30_000;

/** The Node reporter's options, from the configuration file and the process's settings. */
function reporterOptions(settings: NodeAgentSettings): NodeReporterOptions {
  const config = settings.config;
  return {
    nodeName: settings.nodeName,
    registerNode: config.registerNode ?? true,
    registerWithTaints: config.registerWithTaints ?? [],
    providerID: config.providerID ?? '',
    nodeIPs: settings.nodeIPs,
    port: settings.port,
    maxPods: config.maxPods ?? 110,
    maxImages: config.nodeStatusMaxImages ?? 50,
    systemReserved: config.systemReserved ?? {},
    svcReserved: config.svcReserved ?? {},
    rootDir: settings.rootDir,
    agentVersion: settings.agentVersion,
    leaseDurationSeconds: config.nodeLeaseDurationSeconds ?? 40,
    updateFrequencyMs: parseDuration(config.nodeStatusUpdateFrequency ?? '10s'),
    reportFrequencyMs: parseDuration(config.nodeStatusReportFrequency ?? '5m'),
    podCIDR: config.podCIDR ?? '',
  };
}

/** The pieces of a running node agent: Node reporting, the pods' workers and the runtime they drive. */
export class NodeAgent {
  readonly reporter: NodeReporter;
  readonly pods: PodManager;
  readonly probes: ProbeManager;
  readonly objects: ConfigObjects;
  readonly tokens: ServiceAccountTokenManager;
  private readonly recorder: EventRecorder;
  private readonly eventLimiter?: TokenBucket;
  private podInformer?: SharedInformer<Pod>;
  private nodeInformer?: SharedInformer<Node>;
  private readonly serviceInformer: SharedInformer<Service>;
  private nodeUid?: string;
  readonly podLogRoot: string;
  readonly staticPods?: StaticPodSource;
  readonly startMetrics: PodStartMetrics;
  private readonly logs: ContainerLogManager;
  readonly provisioner?: LocalPathProvisioner;

  constructor(
    private readonly client: Client,
    readonly cri: CriClient,
    private readonly settings: NodeAgentSettings,
  ) {
    const config = settings.config;
    this.startMetrics = settings.startMetrics;
    this.podLogRoot = join(settings.rootDir, 'pod-logs');
    this.recorder = new EventRecorder(client, { component: 'svc-node-agent', host: settings.nodeName, onError: () => undefined });
    if ((config.eventRecordQPS ?? 5) > 0) this.eventLimiter = new TokenBucket(config.eventRecordQPS ?? 5, Math.max(1, config.eventBurst ?? 10));
    this.reporter = new NodeReporter(client, cri, reporterOptions(settings), settings.log);
    this.serviceInformer = new SharedInformer<Service>(listerWatcherFor(client.resource(BUILTIN_RESOURCES.services), {}), {
      logger: silentInformerLogger,
      name: 'services',
    });
    this.objects = new ConfigObjects(client, (uids) => uids.forEach((uid) => this.pods.requestSync(uid)));
    this.tokens = new ServiceAccountTokenManager(apiServerTokenIssuer(client), (uid) => this.pods.requestSync(uid));
    this.probes = new ProbeManager(cri, {
      changed: (uid) => this.pods.requestSync(uid),
      unhealthy: (uid, containerId, _kind, message, grace) => this.pods.markUnhealthy(uid, containerId, message, grace),
      event: (pod, type, reason, message) => this.event(pod, type, reason, message),
    });
    this.pods = new PodManager(cri, this.podWorkerContext(), parseDuration(config.syncFrequency ?? '1m'));
    this.logs = new ContainerLogManager(
      cri,
      {
        maxSize: quantityValue(config.containerLogMaxSize ?? '10Mi') ?? 10 * 1024 * 1024,
        maxFiles: config.containerLogMaxFiles ?? 5,
        monitorIntervalMs: parseDuration(config.containerLogMonitorInterval ?? '10s'),
        maxWorkers: config.containerLogMaxWorkers ?? 1,
      },
      settings.log,
    );
    if (settings.localPath?.enabled ?? true) {
      // Events on claims and volumes come from the provisioner by name, as an external provisioner's do.
      const recorder = new EventRecorder(client, {
        component: `${LOCAL_PATH_PROVISIONER}_${settings.nodeName}`,
        host: settings.nodeName,
        onError: () => undefined,
      });
      this.provisioner = new LocalPathProvisioner(client, recorder, {
        nodeName: settings.nodeName,
        baseDir: settings.localPath?.baseDir || join(settings.rootDir, 'local-path-volumes'),
        log: settings.log,
      });
    }
    if (config.staticPodPath) {
      const frequencyMs = parseDuration(config.fileCheckFrequency ?? '20s');
      this.staticPods = new StaticPodSource(config.staticPodPath, settings.nodeName, frequencyMs, client, this.pods, () => this.nodeUid, settings.log);
    }
  }

  /** What the pod workers work with: the runtime, image pulls, volumes, probes, events and the API. */
  private podWorkerContext(): PodWorkerContext {
    const { config, ...settings } = this.settings;
    const images = new ImageManager(
      this.cri,
      { serialize: config.serializeImagePulls ?? true, qps: config.registryPullQPS ?? 5, burst: config.registryBurst ?? 10 },
      settings.credentials,
      (pod, type, reason, message) => this.event(pod, type, reason, message),
    );
    return {
      cri: this.cri,
      rootDir: settings.rootDir,
      sandbox: {
        podLogRoot: this.podLogRoot,
        clusterDNS: config.clusterDNS ?? [],
        clusterDomain: config.clusterDomain ?? '',
        resolvConf: config.resolvConf ?? DEFAULT_RESOLV_CONF,
        nodeIPs: settings.nodeIPs,
        cgroupRoot: config.cgroupRoot ?? '',
        cgroupsPerQOS: config.cgroupsPerQOS ?? true,
      },
      clusterDomain: config.clusterDomain ?? '',
      resources: () => ({ cfsQuota: config.cpuCFSQuota ?? true, memoryCapacityBytes: memInfo().total }),
      facts: () => ({
        nodeName: settings.nodeName,
        hostIPs: settings.nodeIPs,
        allocatableMilliCpu: quantityMilliValue(this.reporter.allocatable.cpu) ?? 0,
        allocatableMemory: quantityValue(this.reporter.allocatable.memory) ?? 0,
      }),
      images,
      volumes: new VolumeManager(settings.rootDir, this.objects, this.tokens, this.claimReader()),
      objects: this.objects,
      probes: this.probes,
      services: async () => {
        // As the kubelet: a container whose Service variables cannot be known yet is not made without them.
        if (!(await this.serviceInformer.whenSynced(SERVICES_SYNC_MS)))
          throw new Error(
            `services have not yet been read at least once, cannot construct envvars: ${this.serviceInformer.lastError?.message ?? 'not synced'}`,
          );
        return this.serviceInformer.lister().list();
      },
      runtimeHandler: async (className) => (await this.client.resource(BUILTIN_RESOURCES.runtimeClasses).get(className)).handler,
      restartBackoff: new KeyedBackoff(),
      startMetrics: settings.startMetrics,
      event: (pod, type, reason, message) => this.event(pod, type, reason, message),
      nodeEvent: (type, reason, message) => this.nodeEvent(type, reason, message),
      log: settings.log,
      writeStatus: (pod, status) => this.writeStatus(pod, status),
      finalDelete: (pod) => this.finalDelete(pod),
    };
  }

  /** Claims and volumes read from the API when a pod's volumes are set up (the node authorizer lets the node read its pods'). */
  private claimReader(): ClaimReader {
    const orUndefined = <T>(read: Promise<T>) => read.catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
    return {
      claim: (namespace, name) => orUndefined(this.client.resource(BUILTIN_RESOURCES.persistentVolumeClaims).get(name, { namespace })),
      volume: (name) => orUndefined(this.client.resource(BUILTIN_RESOURCES.persistentVolumes).get(name)),
    };
  }

  event(pod: Pod, type: PodEventType, reason: string, message: string): void {
    if (this.eventLimiter && !this.eventLimiter.tryAccept()) return;
    const involved = { ...pod, apiVersion: 'v1', kind: 'Pod' };
    void this.recorder.event(involved, type, reason, message);
  }

  /** An event about this node, named as the kubelet names it (its UID is its name). */
  nodeEvent(type: PodEventType, reason: string, message: string): void {
    if (this.eventLimiter && !this.eventLimiter.tryAccept()) return;
    const name = this.settings.nodeName;
    void this.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } }, type, reason, message);
  }

  private async writeStatus(pod: Pod, status: NonNullable<Pod['status']>): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    // A static pod's status goes to its mirror pod; until there is one it is kept (and sent when the mirror appears).
    const uid = isStaticPod(pod) ? this.staticPods?.mirrorUid(pod) : pod.metadata?.uid;
    if (!uid) return;
    try {
      await this.client.pods.patchStatus(name, { metadata: { uid }, status }, 'strategic', { namespace });
    } catch (error) {
      // The pod is gone or was replaced by another of the same name: nothing to report.
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
  }

  private async finalDelete(pod: Pod): Promise<void> {
    try {
      await this.client.pods.delete(pod.metadata?.name ?? '', {
        namespace: pod.metadata?.namespace,
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata?.uid },
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) this.settings.log(`deleting pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${errorMessage(error)}`);
    }
  }

  async start(): Promise<void> {
    await mkdir(this.podLogRoot, { recursive: true });
    await mkdir(join(this.settings.rootDir, 'pods'), { recursive: true });
    // Static pods are known before housekeeping, which removes sandboxes of pods the node does not have.
    await this.staticPods?.load();
    this.pods.start();
    this.logs.start();
    await this.reporter.start();
    // Once, as the kubelet's sync loop begins: a resolver file pods cannot take whole is the node's warning.
    const { config } = this.settings;
    const resolverProblem = resolvConfProblem({ resolvConf: config.resolvConf ?? DEFAULT_RESOLV_CONF, clusterDomain: config.clusterDomain ?? '' });
    if (resolverProblem) {
      this.settings.log(`resolv.conf: ${resolverProblem}`);
      this.nodeEvent('Warning', 'CheckLimitsForResolvConf', resolverProblem);
    }
    const nodeName = this.settings.nodeName;
    const podScope = { fieldSelector: `spec.nodeName=${nodeName}` };
    this.podInformer = new SharedInformer<Pod>(listerWatcherFor(this.client.pods, podScope), { logger: silentInformerLogger, name: 'pods' });
    // Mirror pods stand for static pods in the API: they are kept in step, never run.
    this.podInformer.addEventHandler({
      onAdd: (pod) => (isMirrorPod(pod) ? this.staticPods?.mirrorSeen(pod) : this.pods.upsert(pod)),
      onUpdate: (_old, pod) => (isMirrorPod(pod) ? this.staticPods?.mirrorSeen(pod) : this.pods.upsert(pod)),
      onDelete: (pod) => (isMirrorPod(pod) ? this.staticPods?.mirrorGone(pod) : this.pods.remove(pod.metadata?.uid ?? '')),
    });
    const nodeScope = { fieldSelector: `metadata.name=${nodeName}` };
    this.nodeInformer = new SharedInformer<Node>(listerWatcherFor(this.client.resource(BUILTIN_RESOURCES.nodes), nodeScope), {
      logger: silentInformerLogger,
      name: 'node',
    });
    const afterNode = (node: Node) => {
      const known = this.nodeUid;
      this.nodeUid = node.metadata?.uid;
      if (known !== this.nodeUid) this.staticPods?.nodeSeen();
      this.reporter.afterNode(node);
    };
    this.nodeInformer.addEventHandler({ onAdd: afterNode, onUpdate: (_o, node) => afterNode(node) });
    this.serviceInformer.start();
    this.podInformer.start();
    this.nodeInformer.start();
    this.provisioner?.start();
    void this.podInformer.whenSynced().then((synced) => {
      if (!synced) return;
      this.pods.allowHousekeeping();
      this.staticPods?.allowMirrorCleanup();
    });
  }

  /** Stops the agent's loops; containers keep running (a restarted agent adopts them). */
  async stop(): Promise<void> {
    this.reporter.stop();
    this.staticPods?.stop();
    this.pods.stop();
    this.logs.stop();
    this.probes.stop();
    this.tokens.stop();
    await this.provisioner?.stop();
    await Promise.all([this.podInformer?.stop(), this.nodeInformer?.stop(), this.serviceInformer.stop(), this.objects.stop()]);
  }
}
