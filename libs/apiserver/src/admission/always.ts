import { newForbidden } from '@svc/machinery';
import type { AdmissionPlugin } from './admission';

/** Refuses every write (a testing plugin Kubernetes ships too). */
export function alwaysDeny(): AdmissionPlugin {
  return {
    name: 'AlwaysDeny',
    admit(attributes) {
      const name = attributes.name || attributes.object?.metadata?.generateName || '';
      throw newForbidden(
        { group: attributes.definition.group, resource: attributes.definition.resource },
        name,
        'admission control is denying all modifications',
      );
    },
  };
}
