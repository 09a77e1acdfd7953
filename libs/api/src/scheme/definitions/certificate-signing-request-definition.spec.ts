import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldErrorMessage } from '@svc/machinery';
import { compileKind } from '../../schema/compile-kind';
import type { ApiObject } from '../kind-definition';
import { buildTable } from '../table';
import { certificateSigningRequestDefinition as def } from './certificate-signing-request-definition';

// A real PKCS#10 request (openssl), as clients send them.
const dir = mkdtempSync(join(tmpdir(), 'hcerts-csr-spec-'));
execFileSync(
  'openssl',
  [
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(dir, 'k'),
    '-subj',
    '/CN=alice/O=dev',
    '-out',
    join(dir, 'r'),
  ],
  {
    stdio: 'ignore',
  },
);
const REQUEST = readFileSync(join(dir, 'r'));
rmSync(dir, { recursive: true, force: true });

function csr(spec: Record<string, unknown> = {}, status?: Record<string, unknown>): ApiObject {
  return {
    metadata: { name: 'alice' },
    spec: { request: REQUEST.toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
    ...(status ? { status } : {}),
  };
}

const errorsOf = (object: ApiObject, current?: ApiObject) => compileKind(def).validate(object, current).map(fieldErrorMessage);

describe('CertificateSigningRequest', () => {
  it('records who asked, whatever the body says, and starts with nothing approved or issued', () => {
    const object = csr({ username: 'mallory', groups: ['system:masters'] }, { certificate: 'eA==' });
    def.strategy.prepareForCreate!(object, { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] });
    expect(object.spec).toMatchObject({ username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] });
    expect(object.status).toEqual({});
  });

  it('accepts a valid request and refuses bad ones with Kubernetes’ messages', () => {
    expect(errorsOf(csr())).toEqual([]);
    expect(errorsOf(csr({ request: Buffer.from('hi').toString('base64') }))).toEqual([
      'spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST',
    ]);
    const tampered = Buffer.from(
      REQUEST.toString('latin1').replace(/[A-Za-z](?=[^\n]*\n-----END)/, (c) => (c === 'A' ? 'B' : 'A')),
      'latin1',
    );
    expect(errorsOf(csr({ request: tampered.toString('base64') }))[0]).toMatch(
      /^spec.request: Invalid value: \[\]byte\{0x2d, .*: (x509: ECDSA verification failure|x509: malformed certificate request)$/,
    );
    expect(errorsOf(csr({ signerName: 'example.com' }))).toEqual([
      `spec.signerName: Invalid value: "example.com": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
    ]);
    expect(errorsOf(csr({ signerName: 'example/signer' }))).toEqual([
      'spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots',
    ]);
    expect(errorsOf(csr({ signerName: 'kubernetes.io/legacy-unknown' }))).toEqual([
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    expect(errorsOf(csr({ expirationSeconds: 599 }))).toEqual([
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    expect(errorsOf(csr({ usages: [] }))).toEqual(['spec.usages: Required value']);
    expect(errorsOf(csr({ usages: ['client auth', 'client auth'] }))).toEqual(['spec.usages[1]: Duplicate value: "client auth"']);
  });

  it('keeps Approved and Denied apart, True only, never removed', () => {
    const approved = csr({}, { conditions: [{ type: 'Approved', status: 'True' }] });
    expect(
      errorsOf(
        csr(
          {},
          {
            conditions: [
              { type: 'Approved', status: 'True' },
              { type: 'Denied', status: 'True' },
            ],
          },
        ),
      ),
    ).toEqual(['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
    expect(errorsOf(csr({}, { conditions: [{ type: 'Approved', status: 'False' }] }))).toEqual([
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ]);
    expect(errorsOf(csr({}, { conditions: [] }), approved)).toEqual(['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  });

  it('takes only the conditions through approval, and no approval through status', () => {
    const current = csr({ username: 'alice' }, {});
    const incoming = csr({ username: 'mallory' }, { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }], certificate: 'eA==' });
    const next = def.strategy.subresources!.approval.updateOf!(incoming, current);
    expect((next.spec as { username: string }).username).toBe('alice');
    expect(next.status).toMatchObject({ conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }] });
    expect((next.status as { certificate?: string }).certificate).toBeUndefined();
    expect(def.strategy.status!.validateUpdate!(incoming, current).map(fieldErrorMessage)).toEqual([
      'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    ]);
  });

  it('prints kubectl’s columns', () => {
    const object = csr({ username: 'alice', expirationSeconds: 3600 }, { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' });
    const table = buildTable(def, [object], { now: new Date() });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(table.rows[0].cells.slice(2)).toEqual(['kubernetes.io/kube-apiserver-client', 'alice', '60m', 'Approved,Issued']);
  });
});
