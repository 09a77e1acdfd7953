import type { ConfigMap, Pod, Secret } from '@svc/api';
import type { ConfigKind, ConfigObjects } from '../objects/config-objects';
import { containerEnvironment, expandReferences } from './environment';

const facts = { nodeName: 'node-a', hostIPs: ['127.0.0.1'], podIPs: ['10.1.0.5'], allocatableMilliCpu: 2000, allocatableMemory: 1 << 30 };

function objects(store: Record<string, ConfigMap | Secret>): ConfigObjects {
  return { get: (kind: ConfigKind, namespace: string, name: string) => Promise.resolve(store[`${kind}/${namespace}/${name}`]) } as unknown as ConfigObjects;
}

describe('containerEnvironment', () => {
  const store = {
    'configmaps/default/settings': { data: { color: 'blue', size: 'large' } } as ConfigMap,
    'secrets/default/creds': { data: { password: Buffer.from('s3cret').toString('base64') } } as Secret,
  };

  it('takes envFrom with its prefix (keys as written) first, then env entries expanding earlier names', async () => {
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'default', uid: 'u' },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox:1.36',
            envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { secretRef: { name: 'creds' } }],
            env: [
              { name: 'PLAIN', value: 'value' },
              { name: 'EXPANDED', value: '$(PLAIN)-and-$(CFG_color)-$$(PLAIN)-$(UNKNOWN)' },
            ],
          },
        ],
      },
    };
    const env = Object.fromEntries((await containerEnvironment(pod, pod.spec.containers[0], objects(store), facts)).map(([k, v]) => [k, v.toString()]));
    expect(env).toEqual({ CFG_color: 'blue', CFG_size: 'large', password: 's3cret', PLAIN: 'value', EXPANDED: 'value-and-blue-$(PLAIN)-$(UNKNOWN)' });
  });

  it('expands $(NAME), keeps unknown references and unescapes $$', () => {
    expect(expandReferences('a$(X)b$$(X)$(Y)$', (n) => (n === 'X' ? 'x' : undefined))).toBe('axb$(X)$(Y)$');
  });
});
