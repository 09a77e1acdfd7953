import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa } from '../client-certificates';
import { authenticationInfoData, combineAuthenticationInfo, parseAuthenticationInfoData, type ClusterAuthenticationInfo } from './cluster-authentication-info';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

let dir: string;
let caA: string;
let caB: string;
let expired: string;

function fingerprints(pem: string | undefined): string[] {
  return (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b).fingerprint256);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-authinfo-'));
  caA = (await ensureClientCa(join(dir, 'a'))).certPem;
  caB = (await ensureClientCa(join(dir, 'b'))).certPem;
  // Made eleven years ago with a ten-year validity: expired for a year.
  expired = (await ensureClientCa(join(dir, 'old'), Date.now() - 11 * YEAR_MS)).certPem;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const headers = {
  allowedNames: ['front-proxy'],
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeadersPrefix: ['X-Remote-Extra-'],
};

describe('authentication info data', () => {
  it("writes Kubernetes' keys, the header lists as JSON arrays", () => {
    const data = authenticationInfoData({ clientCaPem: caA, requestHeader: { caPem: caB, ...headers } });
    expect(Object.keys(data).sort()).toEqual([
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    expect(data['requestheader-allowed-names']).toBe('["front-proxy"]');
    expect(data['requestheader-username-headers']).toBe('["X-Remote-User"]');
    expect(data['requestheader-group-headers']).toBe('["X-Remote-Group"]');
    expect(data['requestheader-extra-headers-prefix']).toBe('["X-Remote-Extra-"]');
    expect(data['client-ca-file']).toBe(caA);
  });

  it('leaves out what the server does not have', () => {
    expect(authenticationInfoData({})).toEqual({});
    expect(Object.keys(authenticationInfoData({ clientCaPem: caA }))).toEqual(['client-ca-file']);
  });

  it('reads back what it wrote', () => {
    const info: ClusterAuthenticationInfo = { clientCaPem: caA, requestHeader: { caPem: caB, ...headers } };
    expect(parseAuthenticationInfoData(authenticationInfoData(info))).toEqual(info);
  });

  it('reads hand-edited garbage as nothing rather than failing', () => {
    const info = parseAuthenticationInfoData({
      'client-ca-file': 'not a certificate',
      'requestheader-client-ca-file': caB,
      'requestheader-username-headers': '{"not":"a list"}',
      'requestheader-group-headers': '[',
      'requestheader-allowed-names': '["ok", 3]',
    });
    expect(info.requestHeader).toEqual({ caPem: caB, allowedNames: ['ok'], usernameHeaders: [], groupHeaders: [], extraHeadersPrefix: [] });
    const combined = combineAuthenticationInfo(info, {});
    expect(combined.clientCaPem).toBeUndefined();
  });
});

describe('combining with what is published', () => {
  it('keeps what is there, adds what this server needs, each certificate and header once', () => {
    const existing: ClusterAuthenticationInfo = {
      clientCaPem: caB,
      requestHeader: { caPem: caA, allowedNames: ['other-proxy'], usernameHeaders: ['X-Remote-User'], groupHeaders: [], extraHeadersPrefix: [] },
    };
    const required: ClusterAuthenticationInfo = { clientCaPem: `${caA}${caB}`, requestHeader: { caPem: caA, ...headers } };
    const combined = combineAuthenticationInfo(existing, required);
    expect(fingerprints(combined.clientCaPem)).toEqual(fingerprints(`${caB}${caA}`));
    expect(fingerprints(combined.requestHeader?.caPem)).toEqual(fingerprints(caA));
    expect(combined.requestHeader).toMatchObject({
      allowedNames: ['other-proxy', 'front-proxy'],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeadersPrefix: ['X-Remote-Extra-'],
    });
  });

  it('is stable: combining its own output again changes nothing', () => {
    const required: ClusterAuthenticationInfo = { clientCaPem: `${caA}\n\n${caB}`, requestHeader: { caPem: caB, ...headers } };
    const once = authenticationInfoData(combineAuthenticationInfo({}, required));
    const twice = authenticationInfoData(combineAuthenticationInfo(parseAuthenticationInfoData(once), required));
    expect(twice).toEqual(once);
  });

  it('drops expired certificates', () => {
    const combined = combineAuthenticationInfo({ clientCaPem: expired }, { clientCaPem: caA });
    expect(fingerprints(combined.clientCaPem)).toEqual(fingerprints(caA));
    expect(combineAuthenticationInfo({ clientCaPem: expired }, {}).clientCaPem).toBeUndefined();
  });
});
