import type { CertificateRequestInfo, CertificateSigningRequest } from '@svc/api';
import { csrDeletionDue } from './csr-cleaner-reconciler';
import { builtInSignerCheck } from './signer-rules';

const node = (extra: Partial<CertificateRequestInfo> = {}): CertificateRequestInfo => ({
  commonName: 'system:node:worker-1',
  organizations: ['system:nodes'],
  dnsNames: [],
  ipAddresses: [],
  emailAddresses: [],
  uris: [],
  publicKeyDer: Buffer.alloc(0),
  publicKeyAlgorithm: 'ECDSA',
  ...extra,
});

describe('the built-in signers’ checks', () => {
  it('takes a node’s client request under either name, and refuses names and usages it may not have', () => {
    for (const signer of ['kubernetes.io/kube-apiserver-client-kubelet', 'svc.io/nodeagent-client']) {
      expect(builtInSignerCheck(signer, node(), ['digital signature', 'client auth'])).toEqual({ recognized: true, problem: undefined });
    }
    expect(builtInSignerCheck('svc.io/nodeagent-client', node({ organizations: ['system:masters'] }), ['client auth']).problem).toBe(
      'subject organization is not system:nodes',
    );
    expect(builtInSignerCheck('svc.io/nodeagent-client', node({ dnsNames: ['x'] }), ['client auth']).problem).toBe('DNS subjectAltNames are not allowed');
    expect(builtInSignerCheck('svc.io/nodeagent-client', node(), ['client auth', 'server auth']).problem).toBe(
      'usages did not match [client auth digital signature key encipherment]',
    );
  });

  it('wants a DNS or IP name of a node’s serving request, and client auth of an API server client', () => {
    expect(builtInSignerCheck('kubernetes.io/kubelet-serving', node(), ['digital signature', 'server auth']).problem).toBe(
      'DNS or IP subjectAltName is required',
    );
    expect(
      builtInSignerCheck('kubernetes.io/kubelet-serving', node({ ipAddresses: ['10.0.0.1'] }), ['digital signature', 'server auth']).problem,
    ).toBeUndefined();
    expect(builtInSignerCheck('kubernetes.io/kube-apiserver-client', node(), ['server auth']).problem).toBe(
      'invalid usage for client certificate: server auth',
    );
    expect(builtInSignerCheck('kubernetes.io/kube-apiserver-client', node(), ['digital signature']).problem).toBe(
      'missing required usage for client certificate: client auth',
    );
    expect(builtInSignerCheck('example.com/mine', node(), [])).toEqual({ recognized: false });
  });
});

describe('the cleaner’s deadlines', () => {
  const at = (iso: string) => Date.parse(iso);
  const request = (status: CertificateSigningRequest['status']): CertificateSigningRequest => ({
    metadata: { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { request: '', signerName: 'a.b/c' },
    status,
  });

  it('gives a pending request a day, a denied or failed one an hour from its condition', () => {
    expect(csrDeletionDue(request({}))).toBe(at('2026-01-02T00:00:00Z'));
    expect(csrDeletionDue(request({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2026-01-01T05:00:00Z' }] }))).toBe(
      at('2026-01-01T06:00:00Z'),
    );
    expect(csrDeletionDue(request({ conditions: [{ type: 'Failed', status: 'True', lastUpdateTime: '2026-01-01T05:00:00Z' }] }))).toBe(
      at('2026-01-01T06:00:00Z'),
    );
    // Approved but not issued: the signer's to finish; nothing makes it due.
    expect(csrDeletionDue(request({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T05:00:00Z' }] }))).toBeUndefined();
  });
});
