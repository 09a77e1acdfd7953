import type { ControllerManagerOptions } from '@svc/options';

/** What the namespace controller takes from the flags. */
export class NamespaceOptions {
  constructor(
    /** `--namespace-sync-period`: how often every namespace is looked at again. */
    readonly syncPeriodMs = 300_000,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'namespaceSyncPeriod'>): NamespaceOptions {
    return new NamespaceOptions(flags.namespaceSyncPeriod ?? 300_000);
  }
}
