// Resources named without their object type hold KubeObjects; a mapping may say what it expects.
import { deploymentDefinition, type ApiObject } from '@svc/api';
import { BUILTIN_RESOURCES, type PartialObjectMetadata } from '@svc/client';
import type { KubeObject } from '@svc/informers';
import { GenerationChanged, metadataOnly, Reconciler, type Request } from '@svc/runtime';

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function same<A, B>(proof: Equals<A, B>): void {
  void proof;
}

interface Widget {
  metadata?: { name?: string; namespace?: string };
  spec: { size: number };
}

@Reconciler({
  for: { apiVersion: 'example.com/v1', kind: 'Widget' },
  predicates: [GenerationChanged, (event) => (same<typeof event.object, KubeObject>(true), true)],
  watches: [
    { resource: deploymentDefinition, mapTo: (obj) => (same<typeof obj, KubeObject>(true), []) },
    { resource: { apiVersion: 'example.com/v1', kind: 'Widget' }, mapTo: (widget: Widget) => [{ name: String(widget.spec.size) }] },
    { resource: metadataOnly(BUILTIN_RESOURCES.secrets), mapTo: (meta) => (same<typeof meta, PartialObjectMetadata>(true), []) },
    { resource: metadataOnly<ApiObject>(BUILTIN_RESOURCES.pods), mapTo: (obj) => (same<typeof obj, ApiObject>(true), []) },
  ],
})
export class Widgets {
  reconcile(request: Request): void {
    void request;
  }
}
