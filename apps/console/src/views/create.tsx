import { useState } from 'react';
import { applyYaml, ApplyConflictError } from '../api/apply';
import { errorText } from '../api/client';
import { Dialog } from '../components/dialog';
import { useApp } from '../state/app-context';
import { objectHref } from '../state/route';
import { resourceForKind } from '../api/discovery';

const TEMPLATE = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: example
spec:
  replicas: 2
  selector:
    matchLabels: { app: example }
  template:
    metadata:
      labels: { app: example }
    spec:
      containers:
        - name: main
          image: busybox:1.36
          command: [sh, -c, 'while true; do date; sleep 5; done']
`;

/** Creating (or changing) any object from YAML, applied server-side as the console's field manager. */
export function CreateButton({ kind }: { kind: string }) {
  const { resources, namespace, notify } = useApp();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(TEMPLATE);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await applyYaml(resources, text, { namespace: namespace || 'default' });
      const resource = resourceForKind(resources, created.apiVersion, created.kind);
      notify(`${created.kind} ${created.metadata.name} applied`);
      setOpen(false);
      if (resource) location.hash = objectHref(resource, created.metadata.namespace, created.metadata.name ?? '');
    } catch (e) {
      setError(e instanceof ApplyConflictError ? `${e.message}` : errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Create from YAML
      </button>
      <Dialog title={`Create (${kind} or any kind)`} open={open} onClose={() => setOpen(false)}>
        <label htmlFor="create-yaml">YAML, applied server-side</label>
        <textarea id="create-yaml" className="yaml" rows={22} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
        {error && (
          <p role="alert" className="error" data-testid="create-error">
            {error}
          </p>
        )}
        <div className="row">
          <button type="button" onClick={() => void submit()} disabled={busy}>
            Apply
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </>
  );
}
