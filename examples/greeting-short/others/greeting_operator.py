# The same operator with kopf (Python), for the line count only: not run here.
# kopf does not make CRDs: greeting-crd.yaml is written by hand beside it.
import kopf
import kubernetes


def reconcile(namespace, name, body):
    api = kubernetes.client.CoreV1Api()
    spec = body['spec']
    copies = spec.get('copies', 1)
    for i in range(1, copies + 1):
        cm = {'metadata': {'name': f'{name}-{i}'}, 'data': {'message': spec['message']}}
        kopf.adopt(cm, owner=body)
        try:
            api.create_namespaced_config_map(namespace, cm)
        except kubernetes.client.ApiException as error:
            if error.status != 409:
                raise
            api.patch_namespaced_config_map(f'{name}-{i}', namespace, {'data': cm['data']})
    for cm in api.list_namespaced_config_map(namespace).items:
        owned = any(ref.uid == body['metadata']['uid'] and ref.controller for ref in cm.metadata.owner_references or [])
        suffix = cm.metadata.name.rsplit('-', 1)[-1]
        if owned and suffix.isdigit() and int(suffix) > copies:
            api.delete_namespaced_config_map(cm.metadata.name, namespace)
    return copies


@kopf.on.resume('short.demo.svc.io', 'v1', 'greetings')
@kopf.on.create('short.demo.svc.io', 'v1', 'greetings')
@kopf.on.update('short.demo.svc.io', 'v1', 'greetings')
def on_greeting(namespace, name, body, patch, **_):
    patch.status['configMaps'] = reconcile(namespace, name, body)


# kopf has no "owns": a changed or deleted copy must find its Greeting itself.
@kopf.on.event('', 'v1', 'configmaps')
def on_config_map(namespace, meta, **_):
    for ref in meta.get('ownerReferences', []):
        if ref.get('kind') == 'Greeting' and ref.get('controller'):
            api = kubernetes.client.CustomObjectsApi()
            greeting = api.get_namespaced_custom_object('short.demo.svc.io', 'v1', namespace, 'greetings', ref['name'])
            copies = reconcile(namespace, ref['name'], greeting)
            api.patch_namespaced_custom_object_status('short.demo.svc.io', 'v1', namespace, 'greetings', ref['name'], {'status': {'configMaps': copies}})
