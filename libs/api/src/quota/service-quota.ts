import { isRecord } from '@svc/machinery';
import { records } from '../scheme/definitions/define-kind';
import { matchesNoScope, objectCountQuotaResourceName, type QuotaEvaluator } from './quota-evaluator';
import type { ResourceList } from './resource-list';

const SERVICE_COUNT = objectCountQuotaResourceName('', 'services');
const SERVICE_RESOURCES = new Set([SERVICE_COUNT, 'services', 'services.nodeports', 'services.loadbalancers']);

/**
 * Kubernetes' service evaluator (services.go): a Service counts once; a NodePort Service uses a node
 * port per port, a LoadBalancer one also a load balancer, and node ports unless it asks for none
 * (then only the ports that name one). Type changes on update are charged.
 */
export const serviceQuotaEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  handles: (operation, subresource) => (operation === 'CREATE' || operation === 'UPDATE') && subresource === '',
  matchingResources: (names) => names.filter((n) => SERVICE_RESOURCES.has(n)),
  matchesScope: matchesNoScope,
  usage(service) {
    const spec = isRecord(service.spec) ? service.spec : {};
    const ports = records(spec.ports);
    const out: ResourceList = { [SERVICE_COUNT]: '1', services: '1' };
    if (spec.type === 'NodePort') out['services.nodeports'] = String(ports.length);
    if (spec.type === 'LoadBalancer') {
      const withNodePorts =
        spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length;
      out['services.nodeports'] = String(withNodePorts);
      out['services.loadbalancers'] = '1';
    }
    return out;
  },
  constraints: () => undefined,
};
