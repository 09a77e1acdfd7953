import { aggregatedContentType, negotiateDiscovery, parseAccept } from './discovery-negotiation';

// What client-go's discovery client sends for /api and /apis.
const CLIENT_GO_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery content negotiation', () => {
  it('answers client-go with aggregated v2 at the roots and legacy JSON elsewhere', () => {
    expect(negotiateDiscovery(CLIENT_GO_ACCEPT, true)).toEqual({ type: 'aggregated', version: 'v2' });
    expect(negotiateDiscovery(CLIENT_GO_ACCEPT, false)).toEqual({ type: 'legacy' });
  });

  it('falls back to v2beta1 for clients that only know it, and to JSON for plain clients', () => {
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', true)).toEqual({
      type: 'aggregated',
      version: 'v2beta1',
    });
    expect(negotiateDiscovery('application/json', true)).toEqual({ type: 'legacy' });
    expect(negotiateDiscovery(undefined, true)).toEqual({ type: 'legacy' });
    expect(negotiateDiscovery('*/*', true)).toEqual({ type: 'legacy' });
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,application/json', true)).toEqual({
      type: 'aggregated',
      version: 'v2',
    });
  });

  it('honours q values and refuses what it cannot produce', () => {
    expect(negotiateDiscovery('application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.9', true)).toEqual({
      type: 'aggregated',
      version: 'v2',
    });
    expect(negotiateDiscovery('application/vnd.svc.protobuf', true)).toBeUndefined();
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', true)).toBeUndefined();
    expect(negotiateDiscovery('application/json;as=Table;g=meta.svc.io;v=v1', false)).toBeUndefined();
    expect(negotiateDiscovery('application/json;q=0', false)).toBeUndefined();
  });

  it('parses media ranges with parameters', () => {
    expect(parseAccept('application/json; G=x ;v="y", text/plain;q=0.2')).toEqual([
      { type: 'application/json', params: { g: 'x', v: 'y' }, q: 1 },
      { type: 'text/plain', params: {}, q: 0.2 },
    ]);
    expect(aggregatedContentType('v2')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  });
});
