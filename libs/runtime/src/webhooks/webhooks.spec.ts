import 'reflect-metadata';
import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { isForbidden } from '@svc/machinery';
import { createManager } from '../manager/create-manager';
import type { Manager } from '../manager/manager';
import { defineResource, type ResourceType } from '../resources/define-resource';
import { eventually } from '../testing';
import { Default, Validate, type AdmissionInput } from './admission-decorators';

const widgetType = defineResource({
  group: 'hooks.demo.svc.io',
  kind: 'Widget',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ size: Type.Integer(), color: Type.Optional(Type.String()) }) } },
});
type Widget = ResourceType<typeof widgetType>;
const widgets = widgetType.resource;

class WidgetWebhooks {
  readonly seen: string[] = [];

  @Default(widgets)
  paint(widget: Widget): Widget {
    return { ...widget, spec: { ...widget.spec, color: widget.spec.color ?? 'blue' } };
  }

  @Validate(widgets)
  sized({ operation, object, oldObject }: AdmissionInput<Widget>): string | void {
    this.seen.push(`${operation} ${object?.metadata?.name}`);
    if ((object?.spec.size ?? 0) > 10) return `size ${object?.spec.size} is over 10`;
    if (oldObject && object && object.spec.size < oldObject.spec.size) return 'a widget never shrinks';
  }
}

let env: TestEnvironment;
let manager: Manager;
const hooks = new WidgetWebhooks();
beforeAll(async () => {
  env = await startTestEnvironment();
  ({ manager } = createManager({
    clientConfig: env.clientConfig,
    reconcilers: [],
    resources: [widgetType],
    webhooks: { handlers: [hooks], name: 'widget-operator' },
    logger: { info: () => undefined, error: () => undefined },
  }));
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await env?.stop();
});

describe('admission webhooks from decorated methods', () => {
  it('registers the configurations, defaults with the method’s changes and denies with its message', async () => {
    const validating = await env.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).get('widget-operator-validating');
    expect(validating.webhooks).toHaveLength(1);
    expect(validating.webhooks?.[0].clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    const client = env.client.resource(widgets).inNamespace('default');
    // The API server reads the configurations within about half a second.
    const created = await eventually(async () => {
      const widget = await client.create({ metadata: { generateName: 'w-' }, spec: { size: 3 } });
      expect(widget.spec.color).toBe('blue');
      return widget;
    }, 10_000);
    // The two configurations are read apart: the validating one may take effect a moment after the mutating one.
    const denied = await eventually(async () => {
      const error = await client.create({ metadata: { generateName: 'big-' }, spec: { size: 11 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isForbidden(error)).toBe(true);
      return error;
    }, 10_000);
    expect((denied as Error).message).toContain('size 11 is over 10');
    const shrunk = await client.update({ ...created, spec: { ...created.spec, size: 1 } }).catch((error: unknown) => error);
    expect((shrunk as Error).message).toContain('a widget never shrinks');
    expect(hooks.seen).toContain(`UPDATE ${created.metadata?.name}`);
  });

  it('removes its configurations when the manager stops', async () => {
    const { manager: other } = createManager({
      clientConfig: env.clientConfig,
      reconcilers: [],
      webhooks: { handlers: [new WidgetWebhooks()], name: 'short-lived' },
    });
    await other.start();
    const configs = env.client.resource(BUILTIN_RESOURCES.mutatingWebhookConfigurations);
    expect((await configs.get('short-lived-mutating')).webhooks).toHaveLength(1);
    await other.stop();
    expect((await configs.list()).items.map((c) => c.metadata?.name)).not.toContain('short-lived-mutating');
  });
});
