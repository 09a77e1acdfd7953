/**
 * The error of class `type` that `run` throws, for a spec to look into; any other error is thrown
 * on, and a `run` that throws nothing fails the spec.
 */
export function thrownBy<E extends Error>(run: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
