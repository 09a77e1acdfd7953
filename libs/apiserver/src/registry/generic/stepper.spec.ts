import { LOOP_SLICE_MS, Stepper, writeStep, type WriteStep } from './stepper';

/** Holds the event loop for longer than a slice, as a step over a large body does. */
function spendSlice(): void {
  const until = performance.now() + LOOP_SLICE_MS + 5;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

/** A step that records its name in the shared log. */
const logged = (name: string, log: string[], before?: () => void): WriteStep<unknown> =>
  writeStep(name, () => {
    before?.();
    log.push(name);
  });

describe('the stepper of a write', () => {
  test('runs the steps in order on one state, awaiting those that answer a promise', async () => {
    const state: string[] = [];
    await new Stepper().run(
      [writeStep('first', (s: string[]) => void s.push('first')), writeStep('second', async (s: string[]) => void s.push('second'))],
      state,
    );
    expect(state).toEqual(['first', 'second']);
  });

  test('a step that spends the slice lets another request run before the next step', async () => {
    const log: string[] = [];
    const stepper = new Stepper();
    setImmediate(() => log.push('other request'));
    await stepper.run([logged('slow', log, spendSlice), logged('next', log)], undefined);
    expect(log).toEqual(['slow', 'other request', 'next']);
  });

  test('work before the steps that spent the slice (a store read, a decode) lets another request run before the first', async () => {
    const log: string[] = [];
    const stepper = new Stepper();
    spendSlice();
    setImmediate(() => log.push('other request'));
    await stepper.run([logged('first', log)], undefined);
    expect(log).toEqual(['other request', 'first']);
  });

  test('a failure goes through recover', async () => {
    const stepper = new Stepper((error) => new Error(`recovered: ${(error as Error).message}`));
    const failing = writeStep('fails', () => {
      throw new TypeError('broken');
    });
    await expect(stepper.run([failing], undefined)).rejects.toThrow('recovered: broken');
  });
});
