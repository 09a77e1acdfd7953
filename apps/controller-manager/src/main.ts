import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseControllerManagerOptions, parseOrExit, type ControllerManagerOptions } from '@svc/options';
import { generate } from 'selfsigned';
import { ControllerManagerModule } from './controller-manager.module';

interface TlsPair {
  cert: string;
  key: string;
}

// Like Kubernetes' controller manager: the given pair, else a self-signed one held in memory.
async function servingPair(o: ControllerManagerOptions): Promise<TlsPair> {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    return { cert: readFileSync(o.tlsCertFile, 'utf8'), key: readFileSync(o.tlsPrivateKeyFile, 'utf8') };
  }
  const pems = await generate([{ name: 'commonName', value: 'svc-controller-manager' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function serve(o: ControllerManagerOptions): Promise<INestApplication | undefined> {
  if (o.securePort === 0) return undefined;
  const app = await NestFactory.create(ControllerManagerModule, {
    httpsOptions: await servingPair(o),
    logger: ['error', 'warn'],
  });
  await app.listen(o.securePort, o.bindAddress);
  process.stdout.write(`Serving securely on ${o.bindAddress}:${o.securePort}\n`);
  return app;
}

async function main(): Promise<void> {
  const options = parseOrExit(parseControllerManagerOptions, process.argv.slice(2));
  const app = await serve(options);
  const stop = async (): Promise<void> => {
    await app?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // The process lives until it is stopped, serving or not.
  setInterval(() => undefined, 1 << 30);
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-controller-manager: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
