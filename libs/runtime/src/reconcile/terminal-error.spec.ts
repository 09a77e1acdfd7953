import 'reflect-metadata';
import { BUILTIN_RESOURCES } from '@svc/client';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Manager } from '../manager/manager';
import { eventually } from '../testing';
import type { Reconcile } from './reconcile';
import type { Request } from './request';
import { isTerminalError, TerminalError } from './terminal-error';

describe('isTerminalError', () => {
  it('sees a TerminalError through causes and aggregates, and nothing else', () => {
    const terminal = new TerminalError('spec.image is empty');
    expect(isTerminalError(terminal)).toBe(true);
    expect(isTerminalError(new Error('sync failed', { cause: new Error('inner', { cause: terminal }) }))).toBe(true);
    expect(isTerminalError(new AggregateError([new Error('a'), terminal]))).toBe(true);
    expect(isTerminalError(new Error('plain'))).toBe(false);
    expect(isTerminalError('TerminalError')).toBe(false);
    expect(isTerminalError(undefined)).toBe(false);
    // A copy of the class from another load of the module is recognised by its mark.
    expect(isTerminalError({ [Symbol.for('svc.runtime.TerminalError')]: true })).toBe(true);
    // A cycle of causes ends.
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isTerminalError(a)).toBe(false);
  });

  it('wraps an error as its cause, with its message', () => {
    const cause = new Error('bad reference');
    const terminal = new TerminalError(cause);
    expect(terminal.message).toBe('bad reference');
    expect(terminal.cause).toBe(cause);
    expect(terminal.name).toBe('TerminalError');
  });
});

describe('a reconcile that throws a TerminalError', () => {
  let env: TestEnvironment;
  let manager: Manager | undefined;
  beforeAll(async () => {
    env = await startTestEnvironment();
  });
  afterAll(async () => {
    await manager?.stop();
    await env?.stop();
  });

  it('is logged and counted but not retried; the next change reconciles the object again', async () => {
    await env.client.namespaces.create({ metadata: { name: 'terminal' } });
    const calls: string[] = [];
    const logged: string[] = [];
    manager = new Manager({ clientConfig: env.clientConfig, logger: { info: () => undefined, error: (message) => logged.push(message) } });
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'terminal', name: 'validating' })
    class Validating implements Reconcile {
      reconcile(request: Request): void {
        calls.push(request.name);
        // Wrapped, as a helper might: still terminal.
        throw new Error(`validating ${request.name}`, { cause: new TerminalError('data.size must be a number') });
      }
    }
    manager.add(new Validating());
    await manager.start();
    const cms = env.client.configMaps.inNamespace('terminal');
    await cms.create({ metadata: { name: 'bad' }, data: { size: 'large' } });
    await eventually(() => expect(calls).toEqual(['bad']));
    // A retry would come 5 ms after the failure (client-go's first backoff): none comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toEqual(['bad']);
    expect(logged).toEqual([
      'controller validating: reconcile of terminal/bad (triggered by added ConfigMap terminal/bad) failed with a terminal error, not retried',
    ]);

    const metric = async (name: string, labels: Record<string, string> = {}) =>
      (await manager!.registry.getSingleMetric(name)!.get()).values.find(
        (v) => v.labels.controller === 'validating' && Object.entries(labels).every(([k, x]) => v.labels[k] === x),
      )?.value;
    expect(await metric('controller_runtime_reconcile_errors_total')).toBe(1);
    expect(await metric('controller_runtime_terminal_reconcile_errors_total')).toBe(1);
    expect(await metric('controller_runtime_reconcile_total', { result: 'error' })).toBe(1);
    expect(manager.getControllers()[0].queueLength()).toBe(0);

    await cms.patch('bad', { data: { size: '3' } }, 'merge');
    await eventually(() => expect(calls).toEqual(['bad', 'bad']));
  });
});
