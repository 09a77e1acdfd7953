import type { Pod } from '@svc/api';
import { quantityMilliValue, quantityValue } from '@svc/api';
import { ContainerConfigError } from './container-config-error';

/**
 * The downward API: what a container or a volume may read of its own pod (metadata, addresses, the
 * node) and of its containers' resources.
 */

export interface PodFacts {
  nodeName: string;
  hostIPs: readonly string[];
  podIPs: readonly string[];
  /** The node's allocatable cpu (milli) and memory (bytes), for limits a container does not set. */
  allocatableMilliCpu: number;
  allocatableMemory: number;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** `key="value"` lines, sorted, as the downward API renders labels and annotations. */
export function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}="${escapeLabelValue(map![key])}"`)
    .join('\n');
}

/** The value of a downward API field path of the pod. */
export function podFieldValue(pod: Pod, fieldPath: string, facts: PodFacts): string {
  const meta = pod.metadata ?? {};
  const mapKey = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (mapKey) return (mapKey[1] === 'labels' ? meta.labels : meta.annotations)?.[mapKey[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return formatMap(meta.labels);
    case 'metadata.annotations':
      return formatMap(meta.annotations);
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? facts.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return facts.hostIPs[0] ?? '';
    case 'status.hostIPs':
      return facts.hostIPs.join(',');
    case 'status.podIP':
      return facts.podIPs[0] ?? '';
    case 'status.podIPs':
      return facts.podIPs.join(',');
    default:
      throw new ContainerConfigError(`unsupported field path ${JSON.stringify(fieldPath)}`);
  }
}

/** The value of a resourceFieldRef: a container's request or limit divided by the divisor, rounded up. */
export function resourceFieldValue(pod: Pod, containerName: string, resource: string, divisor: string | number | undefined, facts: PodFacts): string {
  const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === containerName);
  if (!container) throw new ContainerConfigError(`resourceFieldRef names no container ${JSON.stringify(containerName)}`);
  const [kind, name] = resource.split('.') as ['limits' | 'requests', string];
  const given = container.resources?.[kind]?.[name];
  const isCpu = name === 'cpu';
  let value: number;
  if (isCpu) value = quantityMilliValue(given) ?? (kind === 'limits' ? facts.allocatableMilliCpu : 0);
  else value = quantityValue(given) ?? (kind === 'limits' && name === 'memory' ? facts.allocatableMemory : 0);
  const div = isCpu ? (quantityMilliValue(divisor ?? '1') ?? 1000) : (quantityValue(divisor ?? '1') ?? 1);
  return String(Math.ceil(value / Math.max(1, div)));
}
