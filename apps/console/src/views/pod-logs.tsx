import { useEffect, useRef, useState } from 'react';
import { authHeaders, ApiError, type Status } from '../api/client';
import type { WireObject } from '../api/watch';

const MAX_LINES = 5_000;

export function containerNames(pod: WireObject): string[] {
  const spec = (pod as { spec?: { containers?: Array<{ name: string }>; initContainers?: Array<{ name: string }> } }).spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].map((c) => c.name);
}

/** A container's log (or its previous instance's), followed as it grows. */
export function PodLogs({ pod }: { pod: WireObject }) {
  const names = containerNames(pod);
  const [container, setContainer] = useState(names[0] ?? '');
  const [follow, setFollow] = useState(true);
  const [previous, setPrevious] = useState(false);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [state, setState] = useState<'reading' | 'following' | 'ended'>('reading');
  const pre = useRef<HTMLPreElement>(null);
  const { namespace, name } = pod.metadata;
  useEffect(() => {
    const abort = new AbortController();
    setText('');
    setError(undefined);
    setState('reading');
    const query = new URLSearchParams({ container, tailLines: '1000' });
    if (follow && !previous) query.set('follow', 'true');
    if (previous) query.set('previous', 'true');
    const read = async () => {
      const response = await fetch(`/api/v1/namespaces/${encodeURIComponent(namespace ?? '')}/pods/${encodeURIComponent(name ?? '')}/log?${query.toString()}`, {
        headers: { Accept: 'text/plain,*/*', ...authHeaders() },
        signal: abort.signal,
        cache: 'no-store',
      });
      if (!response.ok || !response.body) {
        const body = await response.text();
        let status: Status = { message: body };
        try {
          status = JSON.parse(body) as Status;
        } catch {
          // plain text
        }
        throw new ApiError(status, response.status);
      }
      if (follow && !previous) setState('following');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let all = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        all += value;
        const lines = all.split('\n');
        if (lines.length > MAX_LINES) all = lines.slice(-MAX_LINES).join('\n');
        setText(all);
      }
      setState('ended');
    };
    read().catch((e: unknown) => {
      if (abort.signal.aborted) return;
      setError(e instanceof Error ? e.message : String(e));
      setState('ended');
    });
    return () => abort.abort();
  }, [namespace, name, container, follow, previous]);
  useEffect(() => {
    const el = pre.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [text, follow]);
  return (
    <div>
      <div className="row">
        <label>
          Container
          <select value={container} onChange={(e) => setContainer(e.target.value)}>
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <label className="check">
          <input type="checkbox" checked={previous} onChange={(e) => setPrevious(e.target.checked)} /> Previous instance
        </label>
        <span className="muted" aria-live="polite" data-testid="log-state">
          {state === 'following' ? 'following' : state === 'reading' ? 'reading...' : 'ended'}
        </span>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <pre className="log" ref={pre} tabIndex={0} role="log" aria-live="off" aria-label="Log" data-testid="log">
        {text}
      </pre>
    </div>
  );
}
