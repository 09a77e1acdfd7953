/** One version of an API group as discovery lists it (meta/v1 GroupVersionForDiscovery). */
export interface GroupVersionForDiscovery {
  /** `v1` for the core group, `<group>/<version>` otherwise. */
  groupVersion: string;
  version: string;
}
