import { useState } from 'react';

/**
 * Signing in: a bearer token (a ServiceAccount's from `kubectl create token`, a static or OIDC one),
 * kept in this tab only, or none, when the browser presents a client certificate of the cluster's CA.
 */
export function Login({ checking, error, onSignIn }: { checking: boolean; error?: string; onSignIn: (token: string | undefined) => void }) {
  const [value, setValue] = useState('');
  return (
    <main className="login" id="main">
      <h1>svc console</h1>
      <p>Sign in with a bearer token, or with the client certificate your browser presents.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSignIn(value.trim() || undefined);
        }}
      >
        <label htmlFor="token">Bearer token</label>
        <input id="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} placeholder="kubectl create token ..." />
        <div className="row">
          <button type="submit" disabled={checking}>
            Sign in with token
          </button>
          <button type="button" disabled={checking} onClick={() => onSignIn(undefined)}>
            Use my browser certificate
          </button>
        </div>
      </form>
      {checking && <p aria-live="polite">Checking who you are...</p>}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </main>
  );
}
