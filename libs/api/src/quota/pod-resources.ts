import { isRecord } from '@svc/machinery';
import { records } from '../scheme/definitions/define-kind';
import { addQuantities, type ResourceList } from './resource-list';
import { quantityNanoValue } from '../meta/quantity';

function listOf(value: unknown): ResourceList {
  return isRecord(value) ? (value as ResourceList) : {};
}

function add(into: ResourceList, list: ResourceList): void {
  for (const [name, value] of Object.entries(list)) into[name] = name in into ? addQuantities(into[name], value) : value;
}

function max(into: ResourceList, list: ResourceList): void {
  for (const [name, value] of Object.entries(list)) {
    if (!(name in into) || (quantityNanoValue(value) ?? 0n) > (quantityNanoValue(into[name]) ?? 0n)) into[name] = value;
  }
}

function containerResources(container: Record<string, unknown>, field: 'requests' | 'limits'): ResourceList {
  return isRecord(container.resources) ? listOf(container.resources[field]) : {};
}

/**
 * Kubernetes' PodRequests and PodLimits (pkg/api/v1/resource): the containers' amounts summed, at
 * least the largest init container's (sidecars, restartable init containers, run beside what follows
 * them and add to both), plus the pod's overhead (for limits, only where a limit is set).
 */
export function podResources(spec: unknown, field: 'requests' | 'limits'): ResourceList {
  const s = isRecord(spec) ? spec : {};
  const total: ResourceList = {};
  for (const c of records(s.containers)) add(total, containerResources(c, field));
  const sidecars: ResourceList = {};
  const init: ResourceList = {};
  for (const c of records(s.initContainers)) {
    const own = containerResources(c, field);
    if (c.restartPolicy === 'Always') {
      add(total, own);
      add(sidecars, own);
      max(init, sidecars);
    } else {
      const during: ResourceList = {};
      add(during, own);
      add(during, sidecars);
      max(init, during);
    }
  }
  max(total, init);
  const overhead = listOf(s.overhead);
  for (const [name, value] of Object.entries(overhead)) {
    if (field === 'requests' || name in total) total[name] = name in total ? addQuantities(total[name], value) : value;
  }
  return total;
}
