import type { PodTemplateSpec } from '@svc/api';
import { canonicalJson, fnv32a, safeEncodeString } from '../common/object-hash';
import { computePodTemplateHash, equalIgnoreHash } from './pod-template-hash';

const template = (image = 'nginx:1.25', labels: Record<string, string> = { app: 'web' }): PodTemplateSpec => ({
  metadata: { labels },
  spec: { containers: [{ name: 'web', image }] },
});

describe('pod-template-hash', () => {
  it('hashes the template to safe alphanumerics, whatever the key order', () => {
    const hash = computePodTemplateHash(template());
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    const reordered = { spec: { containers: [{ image: 'nginx:1.25', name: 'web' }] }, metadata: { labels: { app: 'web' } } } as PodTemplateSpec;
    expect(computePodTemplateHash(reordered)).toBe(hash);
    expect(computePodTemplateHash(template('nginx:1.26'))).not.toBe(hash);
  });

  it('mixes collisionCount in as eight little-endian bytes', () => {
    const t = template();
    const base = fnv32a(Buffer.from(canonicalJson(t), 'utf8'));
    const withCount = fnv32a(Uint8Array.from([2, 0, 0, 0, 0, 0, 0, 0]), base);
    expect(computePodTemplateHash(t, 2)).toBe(safeEncodeString(String(withCount)));
    expect(computePodTemplateHash(t, 0)).not.toBe(computePodTemplateHash(t));
    expect(computePodTemplateHash(t, 1)).not.toBe(computePodTemplateHash(t, 2));
  });

  it('compares templates ignoring the hash label, with nil and empty alike', () => {
    const hashed = template('nginx:1.25', { app: 'web', 'pod-template-hash': 'abc' });
    expect(equalIgnoreHash(hashed, template())).toBe(true);
    expect(equalIgnoreHash(template(), template('nginx:1.26'))).toBe(false);
    const bare = (t: object) => t as PodTemplateSpec;
    expect(equalIgnoreHash(bare({ metadata: { labels: { 'pod-template-hash': 'x' } } }), bare({ metadata: {} }))).toBe(true);
    expect(equalIgnoreHash(bare({ metadata: { annotations: {} }, spec: { containers: [] } }), bare({}))).toBe(true);
    expect(equalIgnoreHash(template(), template('nginx:1.25', { app: 'other' }))).toBe(false);
  });
});
