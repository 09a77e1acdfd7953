import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productVersion, versionText } from './product-version';

describe('productVersion', () => {
  it('is the version of the root package.json', () => {
    const root: { version: string } = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8'));
    expect(productVersion()).toBe(root.version);
    expect(versionText('svc-apiserver')).toBe(`svc-apiserver v${root.version}`);
  });
});
