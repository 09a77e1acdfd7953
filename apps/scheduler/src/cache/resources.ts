import { quantityMilliValue, quantityValue, type Container, type Pod } from '@svc/api';

/** Resource amounts as the scheduler counts them: CPU in millicores, everything else in whole units. */
export interface Resources {
  milliCpu: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended resources (`example.com/gpu`, `hugepages-2Mi`, ...), by name. */
  scalar: Map<string, number>;
}

/** Kubernetes' scoring counts a container without requests as asking this much (DefaultMilliCPURequest, DefaultMemoryRequest). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function emptyResources(): Resources {
  return { milliCpu: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
}

const FIXED = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

function amount(name: string, quantity: unknown): number {
  const value = name === 'cpu' ? quantityMilliValue(quantity) : quantityValue(quantity);
  return value === undefined || value < 0 ? 0 : value;
}

/** A resource list (`requests`, `allocatable`) read into amounts; `pods` is left out (see allowedPods). */
export function resourcesOf(list: Readonly<Record<string, unknown>> | undefined): Resources {
  const out = emptyResources();
  for (const [name, quantity] of Object.entries(list ?? {})) {
    if (name === 'cpu') out.milliCpu = amount(name, quantity);
    else if (name === 'memory') out.memory = amount(name, quantity);
    else if (name === 'ephemeral-storage') out.ephemeralStorage = amount(name, quantity);
    else if (!FIXED.has(name)) out.scalar.set(name, amount(name, quantity));
  }
  return out;
}

export function addResources(into: Resources, more: Resources, sign = 1): void {
  into.milliCpu += sign * more.milliCpu;
  into.memory += sign * more.memory;
  into.ephemeralStorage += sign * more.ephemeralStorage;
  for (const [name, value] of more.scalar) into.scalar.set(name, (into.scalar.get(name) ?? 0) + sign * value);
}

function maxResources(into: Resources, other: Resources): void {
  into.milliCpu = Math.max(into.milliCpu, other.milliCpu);
  into.memory = Math.max(into.memory, other.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, other.ephemeralStorage);
  for (const [name, value] of other.scalar) into.scalar.set(name, Math.max(into.scalar.get(name) ?? 0, value));
}

function requestsOf(container: Container): Record<string, unknown> | undefined {
  return container.resources?.requests;
}

/**
 * What a pod asks of a node (Kubernetes' computePodResourceRequest): the sum of its containers'
 * requests, at least the largest of its init containers' (they run one at a time), plus its overhead;
 * pod-level resources, when given, replace the containers' sum.
 */
export function podRequests(pod: Pod): Resources {
  const spec = pod.spec;
  const total = emptyResources();
  const podLevel = spec.resources?.requests as Record<string, unknown> | undefined;
  if (podLevel && Object.keys(podLevel).length > 0) addResources(total, resourcesOf(podLevel));
  else for (const c of spec.containers ?? []) addResources(total, resourcesOf(requestsOf(c)));
  for (const c of spec.initContainers ?? []) maxResources(total, resourcesOf(requestsOf(c)));
  addResources(total, resourcesOf(spec.overhead));
  return total;
}

/** CPU and memory for scoring: a container that asks for none counts as asking the defaults. */
export function podNonZeroRequests(pod: Pod): { milliCpu: number; memory: number } {
  let milliCpu = 0;
  let memory = 0;
  for (const c of pod.spec.containers ?? []) {
    const requests = requestsOf(c) ?? {};
    milliCpu += requests.cpu === undefined ? DEFAULT_MILLI_CPU_REQUEST : amount('cpu', requests.cpu);
    memory += requests.memory === undefined ? DEFAULT_MEMORY_REQUEST : amount('memory', requests.memory);
  }
  for (const c of pod.spec.initContainers ?? []) {
    const requests = requestsOf(c) ?? {};
    milliCpu = Math.max(milliCpu, requests.cpu === undefined ? DEFAULT_MILLI_CPU_REQUEST : amount('cpu', requests.cpu));
    memory = Math.max(memory, requests.memory === undefined ? DEFAULT_MEMORY_REQUEST : amount('memory', requests.memory));
  }
  const overhead = resourcesOf(pod.spec.overhead);
  return { milliCpu: milliCpu + overhead.milliCpu, memory: memory + overhead.memory };
}
