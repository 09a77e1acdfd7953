import type { Event } from '@svc/api';
import { service } from '../testing/proxy-fixtures';
import { ServiceEvents } from './service-events';

describe('ServiceEvents', () => {
  it('writes a Warning Event per problem once while it lasts, and again when it comes back', async () => {
    const written: Event[] = [];
    const events = new ServiceEvents({ create: async (e) => written.push(e) }, 'svc-proxy', 'node-a', () => undefined);
    const svc = service('web');
    const problem = { reason: 'PortConflict', message: 'taken' };
    await events.report(svc, [problem]);
    await events.report(svc, [problem]);
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: 'PortConflict',
        message: 'taken',
        involvedObject: expect.objectContaining({ kind: 'Service', name: 'web', namespace: 'ns1', uid: 'uid-web' }),
        source: { component: 'svc-proxy', host: 'node-a' },
      }),
    );
    await events.report(svc, []);
    await events.report(svc, [problem]);
    expect(written).toHaveLength(2);
  });

  it('tries a failed write again on the next report', async () => {
    let fail = true;
    const written: Event[] = [];
    const events = new ServiceEvents(
      {
        create: async (e) => {
          if (fail) throw new Error('down');
          written.push(e);
        },
      },
      'svc-proxy',
      'node-a',
      () => undefined,
    );
    await events.report(service('web'), [{ reason: 'R', message: 'm' }]);
    fail = false;
    await events.report(service('web'), [{ reason: 'R', message: 'm' }]);
    expect(written).toHaveLength(1);
  });
});
