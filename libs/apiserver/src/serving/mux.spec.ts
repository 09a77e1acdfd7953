import type { IncomingMessage } from 'node:http';
import { Mux, type MuxRoute } from './mux';

const handler: MuxRoute['handler'] = () => undefined;
const request = (method: string, url: string) => ({ method, url, headers: {} }) as IncomingMessage;

describe('the mux', () => {
  const mux = new Mux();
  mux.handle({ path: '/version', methods: ['GET'], handler });
  mux.handle({ path: '/apis/{group}/{version}', methods: ['GET'], handler });
  mux.handle({ path: '/api/{version}/{resource...}', handler });
  mux.handle({ path: '/console/{file...}', methods: ['GET'], toAnyone: true, handler });
  mux.handle({ path: '/shared/private', methods: ['GET'], handler });
  mux.handle({ path: '/shared/{file...}', methods: ['GET'], toAnyone: true, handler });

  test('matches a path exactly: each segment of a pattern names one non-empty segment', () => {
    expect(mux.match('GET', '/version')?.params).toEqual({});
    expect(mux.match('GET', '/apis/apps/v1')?.params).toEqual({ group: 'apps', version: 'v1' });
    for (const path of ['/version/', '//version', '/versionx', '/apis/apps', '/apis/apps/v1/', '/apis//v1']) expect(mux.match('GET', path)).toBeUndefined();
  });

  test('a rest segment takes what follows as it is, and is never empty', () => {
    expect(mux.match('DELETE', '/api/v1/namespaces/x/pods//y')?.params).toEqual({ version: 'v1', resource: 'namespaces/x/pods//y' });
    expect(mux.match('GET', '/api/v1/')).toBeUndefined();
    expect(mux.match('GET', '/api/v1')).toBeUndefined();
  });

  test('a route of GET serves HEAD too, and another method is no match', () => {
    expect(mux.match('HEAD', '/version')).toBeDefined();
    expect(mux.match('POST', '/version')).toBeUndefined();
  });

  test('a request is served to anyone only when the route the mux would choose for it is', () => {
    expect(mux.servesToAnyone(request('GET', '/console/index.html'))).toBe(true);
    expect(mux.servesToAnyone(request('GET', '/console/app.js?v=1'))).toBe(true);
    expect(mux.servesToAnyone(request('POST', '/console/index.html'))).toBe(false);
    expect(mux.servesToAnyone(request('GET', '/version'))).toBe(false);
    expect(mux.servesToAnyone(request('GET', '/shared/public.txt'))).toBe(true);
    // Added before the route served to anyone, this path's own route wins: it is not.
    expect(mux.servesToAnyone(request('GET', '/shared/private'))).toBe(false);
  });

  test('a mux with no route for anyone answers without matching', () => {
    const plain = new Mux();
    plain.handle({ path: '/version', handler });
    expect(plain.servesToAnyone(request('GET', '/version'))).toBe(false);
  });
});
