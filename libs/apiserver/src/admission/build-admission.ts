import { enabledAdmissionPlugins, type AdmissionPluginName } from '@svc/options';
import { AdmissionChain, type AdmissionPlugin } from './admission';
import { alwaysDeny } from './always';
import { namespaceExists, namespaceLifecycle, type NamespaceLookup } from './namespace-lifecycle';
import { priorityAdmission } from './priority';
import { serviceAccountAdmission, type ServiceAccountLookup } from './service-account';

export interface AdmissionFlags {
  /** `--enable-admission-plugins`. */
  enableAdmissionPlugins?: readonly AdmissionPluginName[];
  /** `--disable-admission-plugins`. */
  disableAdmissionPlugins?: readonly AdmissionPluginName[];
}

export interface AdmissionDependencies {
  namespaces: NamespaceLookup;
  /** The ServiceAccount plugin's lookup; without it only named accounts' defaulting happens. */
  serviceAccounts?: ServiceAccountLookup;
}

/** The plugins this server implements; every other accepted name is on or off and does nothing. */
const IMPLEMENTED: Partial<Record<AdmissionPluginName, (deps: AdmissionDependencies) => AdmissionPlugin>> = {
  NamespaceLifecycle: (deps) => namespaceLifecycle(deps.namespaces),
  NamespaceExists: (deps) => namespaceExists(deps.namespaces),
  AlwaysDeny: () => alwaysDeny(),
  ServiceAccount: (deps) => serviceAccountAdmission(deps.serviceAccounts ?? (() => Promise.resolve({}))),
  Priority: () => priorityAdmission(),
};

/** The admission chain the flags ask for: the defaults plus enabled plugins minus disabled ones, in run order. */
export function buildAdmissionChain(flags: AdmissionFlags, deps: AdmissionDependencies): AdmissionChain {
  const plugins: AdmissionPlugin[] = [];
  for (const name of enabledAdmissionPlugins(flags)) {
    const make = IMPLEMENTED[name];
    if (make !== undefined) plugins.push(make(deps));
  }
  return new AdmissionChain(plugins);
}
