import { PassThrough } from 'node:stream';
import { logCheck, pingCheck } from './builtin-checks';

describe('built-in checks', () => {
  it('ping always passes', async () => {
    await expect(Promise.resolve(pingCheck().check())).resolves.toBeUndefined();
  });

  it('log passes while the log stream flows and fails once it is closed', () => {
    const stream = new PassThrough();
    const check = logCheck(stream);
    expect(() => check.check()).not.toThrow();
    stream.destroy();
    expect(() => check.check()).toThrow(/closed/);
  });
});
