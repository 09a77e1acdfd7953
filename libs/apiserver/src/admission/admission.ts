import type { ApiObject, KindDefinition } from '@svc/api';
import type { UserInfo } from '@svc/machinery';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What admission plugins see of a request (Kubernetes' admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  definition: KindDefinition;
  /** Empty for cluster-scoped resources. */
  namespace: string;
  /** May be empty on create with generateName before the name is generated. */
  name: string;
  /** Empty for the main resource. */
  subresource: string;
  /** The object to be stored (CREATE, UPDATE); the object being deleted for DELETE. */
  object?: ApiObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: ApiObject;
  dryRun: boolean;
  /** Where a plugin adds the `Warning` headers of the response (webhook and policy warnings). */
  warnings?: string[];
  /** The caller, once authentication hands it to admission; absent means anonymous. */
  user?: UserInfo;
  /** Where a plugin records annotations for the request's audit events; absent when the request is not audited. */
  auditAnnotations?: Record<string, string>;
}

/**
 * One admission plugin. `admit` runs in the mutating phase, before the object is validated, and may
 * change `attributes.object`; `validate` runs after validation and may only refuse. Either refuses by
 * throwing a StatusError. Plugins that do nothing here are simply not in the chain.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attributes: AdmissionAttributes): void | Promise<void>;
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

/** The enabled plugins in their run order. */
export class AdmissionChain {
  private readonly admitters: AdmissionPlugin[];
  private readonly validators: AdmissionPlugin[];

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.admitters = plugins.filter((p) => p.admit !== undefined);
    this.validators = plugins.filter((p) => p.validate !== undefined);
  }

  static empty(): AdmissionChain {
    return new AdmissionChain([]);
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    try {
      for (const plugin of this.admitters) await plugin.admit!(attributes);
    } catch (error) {
      throw withWarnings(error, attributes.warnings);
    }
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    try {
      for (const plugin of this.validators) await plugin.validate!(attributes);
    } catch (error) {
      throw withWarnings(error, attributes.warnings);
    }
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }
}

const refusalWarnings = new WeakMap<object, readonly string[]>();

/** Keeps the warnings gathered before a refusal with it, so that the refused response carries them as Kubernetes' does. */
function withWarnings(error: unknown, warnings: readonly string[] | undefined): unknown {
  if (warnings !== undefined && warnings.length > 0 && typeof error === 'object' && error !== null) refusalWarnings.set(error, [...warnings]);
  return error;
}

/** The warnings admission gathered before it refused with `error`. */
export function warningsOfRefusal(error: unknown): readonly string[] {
  return typeof error === 'object' && error !== null ? (refusalWarnings.get(error) ?? []) : [];
}
