import { jsonEqual } from '@svc/machinery';
import { EndpointSliceSchema, type EndpointSlice } from '../../kinds/discovery/endpoint-slice';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

const MAX_SHOWN = 3;
/** The label that ties a slice to its Service (discovery/v1 LabelServiceName). */
export const ENDPOINT_SLICE_SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The label naming the controller that manages a slice (discovery/v1 LabelManagedBy). */
export const ENDPOINT_SLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';

/** Up to three items, then `+ N more...`; `<unset>` when none (Kubernetes' printers for EndpointSlices). */
function firstThree(items: string[]): string {
  if (items.length === 0) return '<unset>';
  const shown = items.slice(0, MAX_SHOWN).join(',');
  return items.length > MAX_SHOWN ? `${shown} + ${items.length - MAX_SHOWN} more...` : shown;
}

/** Kubernetes' formatDiscoveryPorts. */
export function formatSlicePorts(slice: EndpointSlice): string {
  return firstThree((slice.ports ?? []).map((p) => (p.port === undefined ? '<unset>' : String(p.port))));
}

/** Kubernetes' formatDiscoveryEndpoints: the addresses of all endpoints. */
export function formatSliceEndpoints(slice: EndpointSlice): string {
  const shown: string[] = [];
  let total = 0;
  for (const endpoint of slice.endpoints ?? []) {
    for (const address of endpoint.addresses ?? []) {
      if (shown.length < MAX_SHOWN) shown.push(address);
      total++;
    }
  }
  if (total === 0) return '<unset>';
  return total > MAX_SHOWN ? `${shown.join(',')} + ${total - MAX_SHOWN} more...` : shown.join(',');
}

/** ValidateEndpointSliceUpdate: the address type is fixed at creation. */
function immutableAddressType(object: ApiObject, current: ApiObject): FieldError[] {
  const next = as<EndpointSlice>(object).addressType;
  return jsonEqual(next, as<EndpointSlice>(current).addressType) ? [] : [fieldErrors.invalid('addressType', next, 'field is immutable')];
}

export const endpointSliceDefinition = defineKind({
  group: 'discovery.svc.io',
  version: 'v1',
  kind: 'EndpointSlice',
  resource: 'endpointslices',
  namespaced: true,
  schema: EndpointSliceSchema,
  // endpointSliceStrategy: generation 1 on create, bumped when anything but metadata changes.
  strategy: { validateUpdate: immutableAddressType, tracksGeneration: true },
  columns: [
    nameColumn(),
    column('AddressType', 'string', (o) => as<EndpointSlice>(o).addressType ?? '', { description: 'The type of addresses of the slice.' }),
    column('Ports', 'string', (o) => formatSlicePorts(as<EndpointSlice>(o)), { description: 'The ports of the slice.' }),
    column('Endpoints', 'string', (o) => formatSliceEndpoints(as<EndpointSlice>(o)), { description: 'The addresses of the slice.' }),
    ageColumn(),
  ],
});
