import { useEffect, useState } from 'react';
import { applyYaml, ApplyConflictError, editableYaml, FIELD_MANAGER, type ApplyConflict } from '../api/apply';
import { errorText } from '../api/client';
import type { WireObject } from '../api/watch';
import { useApp } from '../state/app-context';

/**
 * The object as YAML, editable and applied server-side as the console's field manager. A field that
 * another manager owns and the edit changes comes back as a conflict, listed here with the manager
 * that owns it; "Apply and take over" forces it.
 */
export function ObjectYaml({ object }: { object: WireObject }) {
  const { resources, notify } = useApp();
  const [base, setBase] = useState(object);
  // Undefined until the YAML library has turned the object into text.
  const [text, setText] = useState<string | undefined>(undefined);
  const [dirty, setDirty] = useState(false);
  const [conflicts, setConflicts] = useState<ApplyConflict[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  // While not edited, the text follows the live object.
  useEffect(() => {
    if (dirty) return;
    let current = true;
    setBase(object);
    void editableYaml(object).then((yaml) => current && setText(yaml));
    return () => {
      current = false;
    };
  }, [object, dirty]);
  const stale = dirty && base.metadata.resourceVersion !== object.metadata.resourceVersion;
  const apply = async (force: boolean) => {
    setError(undefined);
    setConflicts(undefined);
    try {
      await applyYaml(resources, text ?? '', { force, namespace: object.metadata.namespace });
      notify(`${object.kind ?? 'Object'} ${object.metadata.name} applied`);
      setDirty(false);
    } catch (e) {
      if (e instanceof ApplyConflictError) setConflicts(e.conflicts);
      setError(errorText(e));
    }
  };
  if (text === undefined) return <p aria-live="polite">Loading the YAML...</p>;
  return (
    <div>
      <label htmlFor="object-yaml">
        YAML (applied server-side as <code>{FIELD_MANAGER}</code>)
      </label>
      <textarea
        id="object-yaml"
        className="yaml"
        rows={30}
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setDirty(true);
        }}
      />
      {stale && <p className="warn">The object changed on the server since you began editing; applying keeps your values for the fields you set.</p>}
      {error && (
        <div role="alert" className="error" data-testid="apply-error">
          <p>{error}</p>
          {conflicts && (
            <ul>
              {conflicts.map((c, i) => (
                <li key={i}>
                  <code>{c.field}</code>: {c.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="row">
        <button type="button" onClick={() => void apply(false)} disabled={!dirty}>
          Apply
        </button>
        {conflicts && (
          <button type="button" onClick={() => void apply(true)}>
            Apply and take over these fields
          </button>
        )}
        <button type="button" disabled={!dirty} onClick={() => (setDirty(false), setConflicts(undefined), setError(undefined))}>
          Discard changes
        </button>
      </div>
    </div>
  );
}
