import { defaultIngressClassOf, ingressDefinition, INGRESS_CLASS_ANNOTATION, type IngressClass } from '@svc/api';
import { isRecord } from '@svc/machinery';
import type { AdmissionPlugin } from './admission';

/** What DefaultIngressClass reads of the IngressClasses. */
export interface IngressClassLookup {
  /** Every class (to find the default), possibly a moment old, as Kubernetes reads them from an informer. */
  list(): Promise<readonly IngressClass[]>;
}

/** No classes: a server without ingress. */
export function noIngressClasses(): IngressClassLookup {
  return { list: () => Promise.resolve([]) };
}

/**
 * Kubernetes' DefaultIngressClass plugin (plugin/pkg/admission/network/defaultingressclass): a new
 * Ingress that names no class (neither spec.ingressClassName nor the old kubernetes.io/ingress.class
 * annotation) gets the default class; of several defaults, the newest. Updates are left alone, so an
 * Ingress made before a default existed keeps having none.
 */
export function defaultIngressClassAdmission(classes: IngressClassLookup = noIngressClasses()): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    async admit(attributes) {
      const stored = attributes.definition.aliasOf ?? attributes.definition;
      if (attributes.operation !== 'CREATE' || attributes.subresource !== '' || !attributes.object) return;
      if (stored.group !== ingressDefinition.group || stored.resource !== ingressDefinition.resource) return;
      const ingress = attributes.object;
      const spec = isRecord(ingress.spec) ? ingress.spec : (ingress.spec = {});
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      if (ingress.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return;
      const name = defaultIngressClassOf(await classes.list())?.metadata?.name;
      if (name !== undefined) spec.ingressClassName = name;
    },
  };
}
