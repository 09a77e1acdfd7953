import { apiVersionOf, deprecatedApiWarning, findDeprecatedApiVersion, type KindDefinition, type Scheme } from '@svc/api';
import type { MetricsService } from '../metrics/metrics.service';
import type { ResponseWriter } from '../serving/response-writer';
import type { RequestScope } from './request-scope';

interface Deprecation {
  warning: string;
  removedRelease?: string;
}

/**
 * The `Warning` a request of a deprecated API version gets, as Kubernetes sends it (the version's
 * own words, or its scheduled removal), and the apiserver_requested_deprecated_apis series it marks.
 */
export class DeprecationWarnings {
  /** Deprecation of each definition, worked out once (null: not deprecated). */
  private readonly known = new WeakMap<KindDefinition, Deprecation | null>();

  constructor(
    private readonly scheme: Scheme,
    private readonly metrics: MetricsService,
  ) {}

  warn(scope: RequestScope, res: ResponseWriter): void {
    const deprecation = this.deprecationOf(scope.def);
    if (deprecation === null) return;
    const { def, info } = scope;
    res.setHeader('Warning', [`299 - ${JSON.stringify(deprecation.warning)}`]);
    this.metrics.markDeprecatedApiRequested({
      group: def.group,
      version: def.version,
      resource: def.resource,
      subresource: info.subresource,
      removedRelease: deprecation.removedRelease,
    });
  }

  private deprecationOf(def: KindDefinition): Deprecation | null {
    let known = this.known.get(def);
    if (known !== undefined) return known;
    const deprecation = this.scheme.deprecation(def);
    const scheduled = findDeprecatedApiVersion(def.group, def.version, def.resource);
    known = deprecation?.deprecated
      ? {
          warning: deprecation.warning ?? (scheduled ? deprecatedApiWarning(scheduled, def.kind) : `${apiVersionOf(def)} ${def.kind} is deprecated`),
          removedRelease: deprecation.removedRelease,
        }
      : null;
    this.known.set(def, known);
    return known;
  }
}
