import { imageReferenceProblem } from './image-reference';

describe('imageReferenceProblem (distribution/reference as the kubelet parses images)', () => {
  it.each([
    'busybox',
    'busybox:1.36',
    'library/busybox:latest',
    'docker.io/busybox',
    'index.docker.io/library/busybox',
    'localhost/app',
    'localhost:5000/team/app:v1.2_3',
    'registry.example.com:443/a/b-c__d.e/f',
    '[::1]:5000/app',
    'Registry.Example.com/app',
    `busybox@sha256:${'a'.repeat(64)}`,
    `busybox:1.36@sha512:${'0'.repeat(128)}`,
  ])('accepts %s', (image) => expect(imageReferenceProblem(image)).toBeUndefined());

  it.each([
    ['../../../../etc/passwd', 'invalid reference format'],
    ['', 'invalid reference format'],
    ['busy box', 'invalid reference format'],
    ['BUSYBOX', 'invalid reference format: repository name (library/BUSYBOX) must be lowercase'],
    ['team/App:v1', 'invalid reference format: repository name (team/App) must be lowercase'],
    ['example.com/App', 'invalid reference format: repository name (App) must be lowercase'],
    [`busybox@sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`busybox@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format'],
    [`busybox@md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [`busybox@Sha256:${'a'.repeat(64)}`, 'invalid reference format: repository name (library/busybox@Sha256) must be lowercase'],
    ['busybox@sha256:abc', 'invalid reference format'],
    ['busybox:', 'invalid reference format'],
    [`busybox:${'t'.repeat(129)}`, 'invalid reference format'],
    [`${'a'.repeat(64)}`, `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`],
    [`example.com/${'a'.repeat(256)}`, 'repository name must not be more than 255 characters'],
    ['a'.repeat(5000), 'invalid reference format'],
  ])('refuses %s: %s', (image, problem) => expect(imageReferenceProblem(image)).toBe(problem));
});
