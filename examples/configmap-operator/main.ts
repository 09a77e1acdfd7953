import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Client, loadClientConfig } from '@svc/client';
import { createManager } from '@svc/runtime';
import { greetingCrd } from './greeting';
import { GreetingReconciler } from './greeting-reconciler';
import { installCrd } from './install-crd';

const USAGE = 'usage: node examples/configmap-operator/run.js [--svcconfig <file>] [--master <url>]  (no file: $KUBECONFIG, else ~/.kube/config)';

/** The operator as a plain Node program: install the CRD if missing, then reconcile until signalled. */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { svcconfig: { type: 'string' }, master: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  // No --svcconfig: the files KUBECONFIG lists, else ~/.kube/config, as kubectl reads them.
  const clientConfig = await loadClientConfig({ svcconfig: values.svcconfig, master: values.master });

  const setup = new Client(clientConfig);
  try {
    await installCrd(setup, greetingCrd);
  } finally {
    setup.close();
  }

  const { manager } = createManager({ clientConfig, reconcilers: [GreetingReconciler] });
  await manager.start();
  console.log('greeting-operator: reconciling Greetings (demo.svc.io/v1); Ctrl-C stops');

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await manager.stop();
}
