import type { Pod, Service } from '@svc/api';
import type { CriClient } from '@svc/cri';
import type { ImageManager } from '../images/image-manager';
import type { VolumeManager } from '../volumes/volume-manager';
import type { ConfigObjects } from '../objects/config-objects';
import type { ResourceOptions } from '../containers/container-resources';
import type { KeyedBackoff } from '../keyed-backoff';
import type { PodFacts } from '../objects/downward-api';
import type { PodStartMetrics } from './pod-start-metrics';
import type { ProbeManager } from '../probes/probe-manager';
import type { SandboxSettings } from '../containers/sandbox-config';

export type PodEventType = 'Normal' | 'Warning';

/** What a pod worker works with: the container runtime (CRI), the node's facts and the agent's shared managers. */
export interface PodWorkerContext {
  cri: CriClient;
  rootDir: string;
  sandbox: SandboxSettings;
  clusterDomain: string;
  resources: () => ResourceOptions;
  facts: () => Omit<PodFacts, 'podIPs'>;
  images: ImageManager;
  volumes: VolumeManager;
  objects: ConfigObjects;
  probes: ProbeManager;
  /** The cluster's Services, once read (containers' `KUBERNETES_SERVICE_*` and per-Service variables come from them). */
  services(): Promise<readonly Service[]>;
  /** The CRI runtime handler of the RuntimeClass a pod names (RunPodSandbox's runtime_handler); throws when the class is not found. */
  runtimeHandler(className: string): Promise<string>;
  /** The crash backoff of containers' restarts, keyed `<pod uid>/<container name>`. */
  restartBackoff: KeyedBackoff;
  startMetrics: PodStartMetrics;
  event(pod: Pod, type: PodEventType, reason: string, message: string): void;
  /** An event about the node itself. */
  nodeEvent(type: PodEventType, reason: string, message: string): void;
  /** The agent's log (a line to stderr). */
  log(message: string): void;
  /** Writes the pod's status to the API (its mirror pod's, for a static pod). */
  writeStatus(pod: Pod, status: NonNullable<Pod['status']>): Promise<void>;
  /** The final delete of a pod whose containers are gone. */
  finalDelete(pod: Pod): Promise<void>;
}
