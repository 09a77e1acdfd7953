import { isRecord } from '@svc/machinery';
import { ServiceSchema, type Service } from '../../kinds/core/service';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, formatLabels, records } from './define-kind';
import { SERVICE_PROXY } from './proxy-locations';

function defaultService(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  const type = spec.type ?? 'ClusterIP';
  for (const port of records(spec.ports)) {
    // Kubernetes' SetDefaults_Service: an unset, 0 or empty targetPort is the port itself.
    if ((port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') && port.port !== undefined) port.targetPort = port.port;
  }
  if ((type === 'NodePort' || type === 'LoadBalancer') && spec.externalTrafficPolicy === undefined) spec.externalTrafficPolicy = 'Cluster';
  if (type !== 'ExternalName' && spec.internalTrafficPolicy === undefined) spec.internalTrafficPolicy = 'Cluster';
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = isRecord(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : {};
    const clientIP = isRecord(config.clientIP) ? config.clientIP : {};
    clientIP.timeoutSeconds ??= 10800;
    config.clientIP = clientIP;
    spec.sessionAffinityConfig = config;
  }
}

function validateService(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = obj.spec;
  if (!isRecord(spec)) return errors;
  const type = spec.type ?? 'ClusterIP';
  const ports = records(spec.ports);
  if (type === 'ExternalName') {
    if (!spec.externalName) errors.push(fieldErrors.required('spec.externalName'));
  } else if (ports.length === 0 && spec.clusterIP !== 'None') {
    errors.push(fieldErrors.required('spec.ports'));
  }
  if (spec.clusterIP === 'None' && (type === 'NodePort' || type === 'LoadBalancer')) {
    errors.push(fieldErrors.invalid('spec.clusterIP', 'None', `may not be set to 'None' for ${type} services`));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    if (ports.length > 1) {
      if (!port.name) errors.push(fieldErrors.required(`${at}.name`));
      else if (typeof port.name === 'string' && names.has(port.name)) errors.push(fieldErrors.duplicate(`${at}.name`, port.name));
    }
    if (typeof port.name === 'string') names.add(port.name);
    const key = JSON.stringify([port.port, port.protocol ?? 'TCP']);
    if (keys.has(key)) errors.push(fieldErrors.duplicate(at, { port: port.port, protocol: port.protocol ?? 'TCP' }));
    keys.add(key);
    if (port.nodePort !== undefined && type !== 'NodePort' && type !== 'LoadBalancer') {
      errors.push(fieldErrors.forbidden(`${at}.nodePort`, `may not be used when \`type\` is '${typeof type === 'string' ? type : JSON.stringify(type)}'`));
    }
  });
  return errors;
}

function externalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean);
      const all = [...lb, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function portsCell(svc: Service): string {
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}` : `${p.port}/${p.protocol ?? 'TCP'}`)).join(',');
}

export const serviceDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Service',
  resource: 'services',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: { status: true },
  // Kubernetes' svcStrategy: no generation; a new Service's status is an empty load balancer status,
  // which the Go types always serialize (`status: {loadBalancer: {}}`).
  strategy: {
    proxy: SERVICE_PROXY,
    returnDeletedObject: true,
    tracksGeneration: false,
    prepareForCreate(service) {
      service.status = { loadBalancer: {} };
    },
  },
  schema: ServiceSchema,
  allowCreateOnUpdate: true,
  columns: [
    nameColumn(),
    column('Type', 'string', (o) => as<Service>(o).spec?.type ?? 'ClusterIP', { description: 'How the service is exposed.' }),
    column('Cluster-IP', 'string', (o) => as<Service>(o).spec?.clusterIP || '<none>', { description: 'IP address of the service inside the cluster.' }),
    column('External-IP', 'string', (o) => externalIP(as<Service>(o)), { description: 'Addresses the service is reachable at from outside the cluster.' }),
    column('Port(s)', 'string', (o) => portsCell(as<Service>(o)), { description: 'The list of ports that are exposed by this service.' }),
    ageColumn(),
    column('Selector', 'string', (o) => formatLabels(as<Service>(o).spec?.selector), {
      priority: 1,
      description: 'Route service traffic to pods with label keys and values matching this selector.',
    }),
  ],
  defaultHooks: [defaultService],
  validationRules: [validateService],
});
