import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadClientConfig } from '@svc/client';
import { createManager } from '@svc/runtime';
import { greetingType } from './greeting';
import { GreetingReconciler } from './greeting-reconciler';

const USAGE =
  'usage: node examples/configmap-operator/run.js [--svcconfig <file>] [--master <url>] | --print-crd  (no file: $KUBECONFIG, else in-cluster, else ~/.kube/config)';

/** The operator as a plain Node program: apply its CRD, then reconcile until signalled; or print the CRD. */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { svcconfig: { type: 'string' }, master: { type: 'string' }, help: { type: 'boolean' }, 'print-crd': { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values['print-crd']) {
    process.stdout.write(greetingType.yaml());
    return;
  }
  // No --svcconfig: the files KUBECONFIG lists, else the pod's service account, else ~/.kube/config.
  const clientConfig = await loadClientConfig({ svcconfig: values.svcconfig, master: values.master });
  // The manager applies the Greeting CRD and waits until it is served before it starts reading.
  const { manager } = createManager({ clientConfig, reconcilers: [GreetingReconciler], resources: [greetingType] });
  await manager.start();
  console.log('greeting-operator: reconciling Greetings (demo.svc.io/v1); Ctrl-C stops');

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await manager.stop();
}
