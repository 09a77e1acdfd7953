import { LabelQuery } from '@svc/machinery';
import { NAMESPACE_INDEX, type Indexer } from './indexer';
import type { KubeObject } from './kube-object';
import { namespacedNameKey } from './object-key';

/** A label selector: `app=web,tier!=db` syntax, a parsed query, or exact labels. */
export type ListerSelector = string | LabelQuery | Readonly<Record<string, string>>;

function toQuery(selector: ListerSelector | undefined): LabelQuery | undefined {
  if (selector === undefined) return undefined;
  const query = typeof selector === 'string' ? LabelQuery.parse(selector) : selector instanceof LabelQuery ? selector : LabelQuery.fromSet(selector);
  return query.isEmpty() ? undefined : query;
}

function select<T extends KubeObject>(items: T[], selector: ListerSelector | undefined): T[] {
  const query = toQuery(selector);
  return query === undefined ? items : items.filter((obj) => query.matches(obj.metadata?.labels));
}

/**
 * A typed, read-only view of an informer's cache (client-go's listers). It never calls the server.
 * Returned objects are the cached ones, frozen: copy before changing.
 */
export class Lister<T extends KubeObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  /** Every cached object matching the label selector (all when none). */
  list(selector?: ListerSelector): T[] {
    return select(this.indexer.list(), selector);
  }

  /** A cluster-scoped object by name. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** The view of one namespace. */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

/** The objects of one namespace in an informer's cache, read through the namespace index. */
export class NamespaceLister<T extends KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly namespaceName: string,
  ) {}

  list(selector?: ListerSelector): T[] {
    return select(this.indexer.byIndex(NAMESPACE_INDEX, this.namespaceName), selector);
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(namespacedNameKey(this.namespaceName, name));
  }
}
