import { useEffect, useState } from 'react';
import { api, METADATA_LIST_ACCEPT } from '../api/client';
import { collectionPath, objectPath, resourceForKind, type DiscoveredResource } from '../api/discovery';
import type { WireObject, Meta } from '../api/watch';
import { useApp } from '../state/app-context';
import { objectHref } from '../state/route';

interface GraphNode {
  resource: DiscoveredResource;
  meta: Meta;
}

const MAX_DEPTH = 4;

/** Owners up the chain, by their owner references (each read as the user). */
async function ownersOf(resources: DiscoveredResource[], object: WireObject, depth = 0): Promise<GraphNode[][]> {
  if (depth >= MAX_DEPTH) return [];
  const level: GraphNode[] = [];
  for (const ref of object.metadata.ownerReferences ?? []) {
    const resource = resourceForKind(resources, ref.apiVersion, ref.kind);
    if (!resource) continue;
    try {
      const owner = await api<WireObject>(objectPath(resource, resource.namespaced ? object.metadata.namespace : undefined, ref.name), {
        accept: 'application/json',
      });
      level.push({ resource, meta: owner.metadata });
    } catch {
      level.push({ resource, meta: { name: ref.name, uid: ref.uid, namespace: resource.namespaced ? object.metadata.namespace : undefined } });
    }
  }
  if (level.length === 0) return [];
  const above: GraphNode[][] = [];
  for (const node of level) {
    const chain = await ownersOf(resources, { metadata: node.meta }, depth + 1);
    chain.forEach((l, i) => (above[i] = [...(above[i] ?? []), ...l]));
  }
  return [level, ...above];
}

/**
 * Every object of the namespace (or cluster, for a cluster-scoped object) that names an owner, as
 * metadata only: one list per listable resource the user may read, the ones refused left out.
 */
async function ownedObjects(resources: DiscoveredResource[], namespace: string | undefined): Promise<Map<string, GraphNode[]>> {
  const byOwner = new Map<string, GraphNode[]>();
  const candidates = resources.filter((r) => r.preferred && r.verbs.includes('list') && (namespace ? r.namespaced : true));
  await Promise.all(
    candidates.map(async (resource) => {
      try {
        const list = await api<{ items?: Array<{ metadata: Meta }> }>(`${collectionPath(resource, namespace)}?limit=2000`, { accept: METADATA_LIST_ACCEPT });
        for (const item of list.items ?? []) {
          for (const ref of item.metadata.ownerReferences ?? []) {
            const list = byOwner.get(ref.uid) ?? [];
            list.push({ resource, meta: item.metadata });
            byOwner.set(ref.uid, list);
          }
        }
      } catch {
        // A resource the user may not list is not shown.
      }
    }),
  );
  return byOwner;
}

interface Tree {
  node: GraphNode;
  children: Tree[];
}

function dependentsTree(byOwner: Map<string, GraphNode[]>, uid: string | undefined, depth = 0): Tree[] {
  if (!uid || depth >= MAX_DEPTH) return [];
  return (byOwner.get(uid) ?? []).map((node) => ({ node, children: dependentsTree(byOwner, node.meta.uid, depth + 1) }));
}

/** Owners above and dependents below, by owner references: a picture, and the same as a list of links. */
export function OwnerGraph({ object }: { object: WireObject }) {
  const { resources } = useApp();
  const [owners, setOwners] = useState<GraphNode[][] | undefined>();
  const [dependents, setDependents] = useState<Tree[] | undefined>();
  const uid = object.metadata.uid;
  useEffect(() => {
    let cancelled = false;
    void ownersOf(resources, object).then((o) => !cancelled && setOwners(o));
    void ownedObjects(resources, object.metadata.namespace).then((m) => !cancelled && setDependents(dependentsTree(m, uid)));
    return () => {
      cancelled = true;
    };
    // The graph is drawn for the object's identity, not each of its versions.
  }, [uid, resources]);
  const self = resourceForKind(resources, object.apiVersion, object.kind);
  if (!owners || !dependents) return <p aria-live="polite">Reading owners and dependents...</p>;
  const levels: GraphNode[][] = [...[...owners].reverse(), self ? [{ resource: self, meta: object.metadata }] : []];
  const below: GraphNode[][] = [];
  const walk = (trees: Tree[], depth: number) => {
    for (const t of trees) {
      below[depth] = [...(below[depth] ?? []), t.node];
      walk(t.children, depth + 1);
    }
  };
  walk(dependents, 0);
  const all = [...levels, ...below];
  const boxW = 170;
  const boxH = 34;
  const gapY = 30;
  const width = Math.max(1, ...all.map((l) => l.length)) * (boxW + 16) + 16;
  const height = all.length * (boxH + gapY) + 10;
  const position = new Map<string, { x: number; y: number }>();
  all.forEach((level, row) =>
    level.forEach((n, col) => position.set(n.meta.uid ?? `${row}/${col}`, { x: 16 + col * (boxW + 16), y: 10 + row * (boxH + gapY) })),
  );
  const edges: Array<[{ x: number; y: number }, { x: number; y: number }]> = [];
  for (const level of all) {
    for (const n of level) {
      for (const ref of n.meta.ownerReferences ?? []) {
        const from = position.get(ref.uid);
        const to = position.get(n.meta.uid ?? '');
        if (from && to) edges.push([from, to]);
      }
    }
  }
  const label = (n: GraphNode) => `${n.resource.kind}/${n.meta.name ?? ''}`;
  return (
    <div>
      <svg className="graph" aria-hidden="true" viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
        {edges.map(([a, b], i) => (
          <line key={i} x1={a.x + boxW / 2} y1={a.y + boxH} x2={b.x + boxW / 2} y2={b.y} className="edge" />
        ))}
        {all.map((level) =>
          level.map((n) => {
            const p = position.get(n.meta.uid ?? '');
            if (!p) return null;
            const isSelf = n.meta.uid === uid;
            return (
              <g key={n.meta.uid} transform={`translate(${p.x}, ${p.y})`}>
                <rect width={boxW} height={boxH} rx={5} className={isSelf ? 'node self' : 'node'} />
                <text x={8} y={21} className="node-label">
                  {label(n).length > 24 ? `${label(n).slice(0, 23)}…` : label(n)}
                </text>
              </g>
            );
          }),
        )}
      </svg>
      <h2>Owners</h2>
      {owners.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul data-testid="owners">
          {owners.flat().map((n) => (
            <li key={n.meta.uid}>
              <a href={objectHref(n.resource, n.meta.namespace, n.meta.name ?? '')}>{label(n)}</a>
            </li>
          ))}
        </ul>
      )}
      <h2>Dependents</h2>
      {dependents.length === 0 ? <p className="muted">none</p> : <TreeList trees={dependents} />}
    </div>
  );
}

function TreeList({ trees }: { trees: Tree[] }) {
  return (
    <ul data-testid="dependents">
      {trees.map((t) => (
        <li key={t.node.meta.uid}>
          <a href={objectHref(t.node.resource, t.node.meta.namespace, t.node.meta.name ?? '')}>{`${t.node.resource.kind}/${t.node.meta.name ?? ''}`}</a>
          {t.children.length > 0 && <TreeList trees={t.children} />}
        </li>
      ))}
    </ul>
  );
}
