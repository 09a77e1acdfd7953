import { useEffect, useState } from 'react';
import { listAll, type WireObject } from '../api/watch';
import { useApp } from '../state/app-context';

/** The namespace views are scoped to: any name may be typed (a user may read one namespace and not list them). */
export function NamespacePicker() {
  const { namespace, setNamespace } = useApp();
  const [names, setNames] = useState<string[]>([]);
  const [draft, setDraft] = useState(namespace);
  useEffect(() => setDraft(namespace), [namespace]);
  useEffect(() => {
    listAll<WireObject>('/api/v1/namespaces').then(
      (list) => setNames(list.items.map((n) => n.metadata.name ?? '').sort()),
      () => setNames([]),
    );
  }, []);
  return (
    <form
      className="namespace"
      onSubmit={(e) => {
        e.preventDefault();
        setNamespace(draft.trim());
      }}
    >
      <label htmlFor="namespace">Namespace</label>
      <input
        id="namespace"
        list="namespaces"
        value={draft}
        placeholder="all namespaces"
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => draft.trim() !== namespace && setNamespace(draft.trim())}
      />
      <datalist id="namespaces">
        {names.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
    </form>
  );
}
