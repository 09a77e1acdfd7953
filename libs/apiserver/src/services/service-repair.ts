import type { ApiObject, Service } from '@svc/api';
import { prefixKey, type Storage } from '@svc/storage';
import type { AllocationOwner, AllocationStore } from './allocation-store';
import { ipFamilyOf } from './ip-range';
import type { ServiceAllocators } from './service-allocation';

/** How long a record without a Service is left alone: a create may be between its allocation and its write. */
export const LEAK_GRACE_MS = 60_000;

export interface RepairOutcome {
  /** Values held by a stored Service that had no record, now recorded. */
  recorded: number;
  /** Records of values no stored Service holds (older than the grace period), now freed. */
  released: number;
  /** Values two Services claim, or that lie outside the configured ranges: left as they are. */
  problems: string[];
}

interface Claim {
  store: AllocationStore;
  value: string;
  owner: AllocationOwner;
}

function claimsOf(service: Service & ApiObject, allocators: ServiceAllocators): Array<Claim | string> {
  const meta = service.metadata ?? {};
  const owner: AllocationOwner = { namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '' };
  const spec = service.spec ?? {};
  const out: Array<Claim | string> = [];
  const who = `${owner.namespace}/${owner.name}`;
  if (spec.type !== 'ExternalName') {
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      if (ip === 'None' || ip === '') continue;
      const family = ipFamilyOf(ip);
      const store = family === undefined ? undefined : allocators.ips[allocators.families.indexOf(family)];
      if (store === undefined || store.range.offsetOf(ip) === undefined)
        out.push(`Cluster IP ${ip} of Service ${who} is not within the configured service ranges`);
      else out.push({ store, value: ip, owner });
    }
  }
  const ports = [...(spec.ports ?? []).map((p) => p.nodePort), spec.healthCheckNodePort].filter((p): p is number => typeof p === 'number' && p > 0);
  for (const port of new Set(ports)) {
    if (allocators.nodePorts.range.offsetOf(String(port)) === undefined) out.push(`Port ${port} of Service ${who} is not within the port range`);
    else out.push({ store: allocators.nodePorts, value: String(port), owner });
  }
  return out;
}

/**
 * Kubernetes' Service IP and node port repair: after a restart (or a crash between an allocation
 * and its Service's write) the records are made to match the stored Services, so that no value a
 * live Service holds is handed out again and no value is held by nothing forever.
 */
export async function repairServiceAllocations(options: {
  storage: Storage;
  storePrefix: string;
  allocators: ServiceAllocators;
  now?: () => number;
  graceMs?: number;
}): Promise<RepairOutcome> {
  const { storage, allocators } = options;
  const outcome: RepairOutcome = { recorded: 0, released: 0, problems: [] };
  const live = new Map<AllocationStore, Map<string, AllocationOwner>>();
  const prefix = prefixKey({ prefix: options.storePrefix, group: '', resource: 'services' });
  let continueKey: string | undefined;
  do {
    const page = await storage.list<Service & ApiObject>(prefix, { limit: 500, continue: continueKey });
    for (const service of page.items) {
      for (const claim of claimsOf(service, allocators)) await recordClaim(claim, live, outcome);
    }
    continueKey = page.continue || undefined;
  } while (continueKey);
  for (const store of [...allocators.ips, allocators.nodePorts]) {
    await releaseLeaks(store, live.get(store) ?? new Map<string, AllocationOwner>(), outcome, options.now ?? Date.now, options.graceMs ?? LEAK_GRACE_MS);
  }
  return outcome;
}

/** A live Service's value is recorded as its own (once: a value two Services claim is a problem). */
async function recordClaim(claim: Claim | string, live: Map<AllocationStore, Map<string, AllocationOwner>>, outcome: RepairOutcome): Promise<void> {
  if (typeof claim === 'string') {
    outcome.problems.push(claim);
    return;
  }
  const held = live.get(claim.store) ?? new Map<string, AllocationOwner>();
  live.set(claim.store, held);
  const other = held.get(claim.value);
  if (other !== undefined && other.uid !== claim.owner.uid) {
    outcome.problems.push(`the value ${claim.value} is claimed by more than one Service`);
    return;
  }
  held.set(claim.value, claim.owner);
  if (await claim.store.isAllocated(claim.value)) return;
  try {
    await claim.store.allocate(claim.value, claim.owner);
    outcome.recorded++;
  } catch {
    // Taken between the check and the write by a create that will fail on it: no harm.
  }
}

/** Records no live Service holds (past the grace of a create in flight) are released, or given to the Service that has the value. */
async function releaseLeaks(
  store: AllocationStore,
  held: Map<string, AllocationOwner>,
  outcome: RepairOutcome,
  now: () => number,
  grace: number,
): Promise<void> {
  for (const record of await store.list()) {
    const owner = held.get(record.value);
    if (owner?.uid === record.owner.uid) continue;
    if (now() - record.createdAt < grace) continue;
    await store.release(record.value, record.owner);
    outcome.released++;
    // Held in the name of an owner that is gone while a live Service has the value: it is that Service's.
    if (owner !== undefined) {
      await store.allocate(record.value, owner).catch(() => undefined);
      outcome.recorded++;
    }
  }
}
