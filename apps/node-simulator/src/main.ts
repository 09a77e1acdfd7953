import { errorMessage } from '@svc/machinery';
import { Client, clientConfigFromOptions } from '@svc/client';
import { parseNodeSimulatorOptions, parseOrExit } from '@svc/options';
import { SimulatedNodes } from '@svc/node-simulation';
import { nodeSpecs } from './node-specs';

async function main(): Promise<void> {
  const options = parseOrExit(parseNodeSimulatorOptions, process.argv.slice(2));
  const client = new Client(await clientConfigFromOptions(options));
  const specs = nodeSpecs(options);
  const nodes = await SimulatedNodes.start(client, specs, {
    leaseDurationSeconds: options.nodeLeaseDurationSeconds,
    statusReportMs: options.nodeStatusReportFrequency,
    concurrency: options.concurrency,
  });
  process.stdout.write(
    `Running ${specs.length} simulated node(s): ${specs.length <= 10 ? specs.map((s) => s.name).join(', ') : `${specs[0].name} ... ${specs[specs.length - 1].name}`}\n`,
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    if (options.deleteNodesOnExit) for (const name of nodes.names()) await nodes.remove(name).catch(() => undefined);
    await nodes.stopAll();
    client.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-node-simulator: ${errorMessage(err)}\n`);
  process.exit(1);
});
