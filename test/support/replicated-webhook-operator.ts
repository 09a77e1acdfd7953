// One replica of a small operator with a validating and a defaulting webhook, run as its own process
// by the webhook replica tests: `tsx replicated-webhook-operator.ts <connection file> <identity>`.
// It prints one JSON line with its ports once started, and stops gracefully on SIGTERM.
import 'reflect-metadata';
import { Type } from '@sinclair/typebox';
import { loadClientConfig } from '@svc/client';
import { createManager, Default, defineResource, exitOnSignals, Validate, type AdmissionInput, type ResourceType } from '@svc/runtime';

export const widgetType = defineResource({
  group: 'replicas.demo.svc.io',
  kind: 'Widget',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ size: Type.Integer(), color: Type.Optional(Type.String()) }) } },
});
type Widget = ResourceType<typeof widgetType>;

export const OPERATOR_NAME = 'widget-operator';
export const WEBHOOK_SERVICE = { namespace: 'default', name: 'widget-operator-webhooks' };

class WidgetWebhooks {
  @Default(widgetType.resource)
  paint(widget: Widget): Widget {
    return { ...widget, spec: { ...widget.spec, color: widget.spec.color ?? `painted by ${process.argv[3]}` } };
  }

  @Validate(widgetType.resource)
  sized({ object }: AdmissionInput<Widget>): string | void {
    if ((object?.spec.size ?? 0) > 10) return `size ${object?.spec.size} is over 10`;
  }
}

async function main(): Promise<void> {
  const [svcconfig, identity] = process.argv.slice(2);
  if (!svcconfig || !identity) throw new Error('usage: replicated-webhook-operator <connection file> <identity>');
  const { manager } = createManager({
    clientConfig: await loadClientConfig({ svcconfig }),
    resources: [widgetType],
    http: { port: 0 },
    leaderElection: {
      resourceName: OPERATOR_NAME,
      resourceNamespace: 'default',
      identity,
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 500,
    },
    webhooks: { name: OPERATOR_NAME, handlers: [new WidgetWebhooks()], service: WEBHOOK_SERVICE },
    logger: { info: (m) => process.stderr.write(`${m}\n`), error: (m, e) => process.stderr.write(`${m} ${e instanceof Error ? e.message : ''}\n`) },
  });
  exitOnSignals(identity, () => manager.stop());
  await manager.start();
  process.stdout.write(`${JSON.stringify({ webhookPort: manager.webhookPort, healthPort: manager.port })}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
