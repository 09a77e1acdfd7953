import type { Endpoints } from '@svc/api';
import { desiredSlices, sliceMatches } from './desired-slices';

const pod = (name: string) => ({ kind: 'Pod', name, namespace: 'ns', uid: `uid-${name}` });

describe('desiredSlices', () => {
  it('keeps an empty placeholder slice for a Service without endpoints', () => {
    const [slice, ...rest] = desiredSlices('web', undefined, 100);
    expect(rest).toEqual([]);
    expect(slice).toEqual({ name: expect.stringMatching(/^web-[0-9a-f]{5}$/), addressType: 'IPv4', endpoints: [], ports: [] });
  });

  it('turns ready and not-ready addresses into endpoints with conditions, one slice per family and port set', () => {
    const endpoints: Endpoints = {
      subsets: [
        {
          addresses: [{ ip: '10.1.0.1', nodeName: 'n1', targetRef: pod('a') }],
          notReadyAddresses: [{ ip: 'fd00::2', hostname: 'b', targetRef: pod('b') }],
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        },
        { addresses: [{ ip: '10.1.0.3' }], ports: [{ port: 53, protocol: 'UDP' }] },
      ],
    };
    const slices = desiredSlices('web', endpoints, 100);
    expect(slices.map(({ name: _name, ...rest }) => rest)).toEqual([
      {
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n1', targetRef: pod('a') }],
      },
      {
        addressType: 'IPv6',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [{ addresses: ['fd00::2'], conditions: { ready: false, serving: false, terminating: false }, hostname: 'b', targetRef: pod('b') }],
      },
      {
        addressType: 'IPv4',
        ports: [{ name: '', port: 53, protocol: 'UDP' }],
        endpoints: [{ addresses: ['10.1.0.3'], conditions: { ready: true, serving: true, terminating: false } }],
      },
    ]);
    expect(new Set(slices.map((s) => s.name)).size).toBe(3);
  });

  it('cuts a large group into slices of at most --max-endpoints-per-slice, with names stable across recomputation', () => {
    const addresses = Array.from({ length: 5 }, (_, i) => ({ ip: `10.1.0.${i + 1}` }));
    const endpoints: Endpoints = { subsets: [{ addresses, ports: [{ port: 80 }] }] };
    const slices = desiredSlices('web', endpoints, 2);
    expect(slices.map((s) => s.endpoints.length)).toEqual([2, 2, 1]);
    expect(desiredSlices('web', endpoints, 2).map((s) => s.name)).toEqual(slices.map((s) => s.name));
    expect(sliceMatches({ addressType: 'IPv4', endpoints: slices[0].endpoints, ports: slices[0].ports }, slices[0])).toBe(true);
    expect(sliceMatches({ addressType: 'IPv4', endpoints: slices[1].endpoints, ports: slices[0].ports }, slices[0])).toBe(false);
  });
});
