import { JsonObject, JsonValue, createStrategicMergePatch, strategicMergePatch } from './index';
import { workloadSchema } from './testing/workload-schema';

// A seeded generator keeps the cases reproducible while covering combinations no table lists.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomObject(random: () => number): JsonObject {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const subset = <T>(items: T[]): T[] => items.filter(() => random() < 0.5).sort(() => random() - 0.5);
  const env = (): JsonValue[] => subset(['A', 'B', 'C']).map((name) => ({ name, value: pick(['1', '2']) }));
  const containers = subset(['a', 'b', 'c', 'd']).map((name) => {
    const container: JsonObject = { name, image: pick(['x:1', 'x:2']) };
    if (random() < 0.5) container.env = env();
    if (random() < 0.3) container.command = subset(['sh', '-c', 'run']);
    if (random() < 0.3) container.ports = subset([80, 443, 8080]).map((containerPort) => ({ containerPort }));
    return container;
  });
  const metadata: JsonObject = { name: 'p' };
  if (random() < 0.7) metadata.finalizers = subset(['f1', 'f2', 'f3', 'f4']);
  if (random() < 0.7) metadata.labels = Object.fromEntries(subset(['app', 'tier', 'env']).map((key) => [key, pick(['1', '2'])]));
  const spec: JsonObject = { containers };
  if (random() < 0.5) spec.strategy = random() < 0.5 ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: { maxSurge: pick([1, '25%']) } };
  if (random() < 0.5) spec.replicas = pick([1, 2, 3]);
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

describe('createStrategicMergePatch, on generated objects', () => {
  it('always yields a patch that turns the original into the modified object', () => {
    const random = generator(20240601);
    for (let i = 0; i < 400; i++) {
      const original = randomObject(random);
      const modified = randomObject(random);
      const patch = createStrategicMergePatch(original, modified, workloadSchema);
      const result = strategicMergePatch(original, patch, workloadSchema);
      if (JSON.stringify(result) !== JSON.stringify(modified)) {
        // Names the failing case in the assertion message.
        expect({ original, modified, patch, result }).toEqual({ original, modified, patch, result: modified });
      }
    }
  });
});
