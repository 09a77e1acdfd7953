import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, type ApiObject } from '@svc/api';
import { isStatusError, type UserInfo } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionOperation } from './admission';
import type { Authorizer } from '../auth/authorizer';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './certificate-admission';

const csrs = builtinScheme().byResource({ group: 'certificates.svc.io', version: 'v1', resource: 'certificatesigningrequests' })!;

function request(subject: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hcerts-admission-spec-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k'), '-subj', subject, '-out', join(dir, 'r')],
      {
        stdio: 'ignore',
      },
    );
    return readFileSync(join(dir, 'r')).toString('base64');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const csr = (signerName: string, req = '', certificate?: string): ApiObject => ({
  metadata: { name: 'x' },
  spec: { request: req, signerName, usages: ['client auth'] },
  status: certificate ? { certificate } : {},
});

function attributes(
  operation: AdmissionOperation,
  object: ApiObject,
  oldObject: ApiObject | undefined,
  subresource: string,
  user: UserInfo,
): AdmissionAttributes {
  return { operation, definition: csrs, namespace: '', name: 'x', subresource, object, oldObject, dryRun: false, user };
}

/** Allows `verb` on the signers named in `allowed` only. */
const authorizer = (allowed: Record<string, string[]>): Authorizer => ({
  name: 'test',
  authorize: (a) => ({ decision: a.resource === 'signers' && (allowed[a.verb] ?? []).includes(a.name) ? 'allow' : 'noOpinion', reason: '' }),
});

async function refusal(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return isStatusError(error) ? `${error.code} ${error.message}` : String(error);
  }
}

const alice: UserInfo = { name: 'alice', groups: [] };

describe('certificate admission', () => {
  it('lets approve only who may approve for the signer, by its name or its domain', async () => {
    const plugin = certificateApproval(() => authorizer({ approve: ['example.com/*'] }));
    const mine = csr('example.com/mine');
    expect(await refusal(() => plugin.validate!(attributes('UPDATE', mine, mine, 'approval', alice)))).toBeUndefined();
    const theirs = csr('kubernetes.io/kube-apiserver-client');
    expect(await refusal(() => plugin.validate!(attributes('UPDATE', theirs, theirs, 'approval', alice)))).toBe(
      '403 certificatesigningrequests.certificates.svc.io "x" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
  });

  it('lets write a certificate only who may sign for the signer; other status writes pass', async () => {
    const plugin = certificateSigning(() => authorizer({ sign: ['example.com/mine'] }));
    const before = csr('kubernetes.io/kube-apiserver-client');
    expect(await refusal(() => plugin.validate!(attributes('UPDATE', before, before, 'status', alice)))).toBeUndefined();
    expect(
      await refusal(() => plugin.validate!(attributes('UPDATE', csr('kubernetes.io/kube-apiserver-client', '', 'eA=='), before, 'status', alice))),
    ).toMatch(/forbidden: user not permitted to sign requests with signerName "kubernetes.io\/kube-apiserver-client"$/);
    expect(
      await refusal(() => plugin.validate!(attributes('UPDATE', csr('example.com/mine', '', 'eA=='), csr('example.com/mine'), 'status', alice))),
    ).toBeUndefined();
  });

  it('refuses system:masters for the API server client signer under either name, and only there', async () => {
    const plugin = certificateSubjectRestriction();
    const masters = request('/CN=root/O=system:masters');
    for (const signer of ['kubernetes.io/kube-apiserver-client', 'svc.io/apiserver-client']) {
      expect(await refusal(() => plugin.validate!(attributes('CREATE', csr(signer, masters), undefined, '', alice)))).toMatch(
        new RegExp(`forbidden: use of ${signer} signer with system:masters group is not allowed$`),
      );
    }
    expect(await refusal(() => plugin.validate!(attributes('CREATE', csr('example.com/mine', masters), undefined, '', alice)))).toBeUndefined();
    expect(
      await refusal(() => plugin.validate!(attributes('CREATE', csr('kubernetes.io/kube-apiserver-client', request('/CN=alice/O=dev')), undefined, '', alice))),
    ).toBeUndefined();
  });
});
