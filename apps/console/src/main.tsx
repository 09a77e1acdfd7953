import { StrictMode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, ApiError, errorText, setToken, token } from './api/client';
import { discover, type DiscoveredResource } from './api/discovery';
import { AppContext, findResource, type AppState, type ReviewedUser } from './state/app-context';
import { useRoute } from './state/route';
import { Login } from './views/login';
import { Sidebar } from './views/sidebar';
import { Overview } from './views/overview';
import { ResourceList } from './views/resource-list';
import { ObjectView } from './views/object-view';
import { Reconciles } from './views/reconciles';
import { NamespacePicker } from './components/namespace-picker';
import './styles.css';
import { nonceStyleElements } from './components/style-nonce';

nonceStyleElements();

const NAMESPACE_KEY = 'svc-console-namespace';

interface Session {
  user: ReviewedUser;
  resources: DiscoveredResource[];
}

/** Who the credentials are (SelfSubjectReview) and what the server serves (discovery). */
async function openSession(): Promise<Session> {
  const [review, resources] = await Promise.all([
    api<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      method: 'POST',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    }),
    discover(),
  ]);
  return { user: { username: review.status?.userInfo?.username ?? 'unknown', groups: review.status?.userInfo?.groups ?? [] }, resources };
}

function App() {
  const [session, setSession] = useState<Session | undefined>();
  const [signInError, setSignInError] = useState<string | undefined>();
  const [checking, setChecking] = useState(true);
  const [namespace, setNamespaceState] = useState(() => localStorage.getItem(NAMESPACE_KEY) ?? 'default');
  const [notice, setNotice] = useState<{ message: string; kind: 'ok' | 'error'; at: number } | undefined>();
  const route = useRoute();

  /** `quiet`: the attempt made on opening, which says nothing when no credential is there. */
  const signIn = useCallback(async (newToken: string | undefined, quiet = false) => {
    setToken(newToken);
    setChecking(true);
    setSignInError(undefined);
    try {
      // A connection that failed (no answer of the server) is tried again a few times: networks blink,
      // and only the server's answer may turn a credential away.
      let opened: Session | undefined;
      for (let attempt = 0; opened === undefined; attempt++) {
        try {
          opened = await openSession();
        } catch (error) {
          if (error instanceof ApiError || attempt >= 4) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
      if (opened.user.username === 'system:anonymous') {
        setSession(undefined);
        if (!quiet) setSignInError('The server sees no credentials: your browser presented no client certificate it accepts. Sign in with a token.');
      } else setSession(opened);
    } catch (error) {
      // A token the server refused is forgotten; one it never saw is kept for the next try.
      if (error instanceof ApiError) setToken(undefined);
      setSession(undefined);
      if (!quiet || newToken !== undefined) setSignInError(errorText(error));
    } finally {
      setChecking(false);
    }
  }, []);

  // A token kept from earlier in this tab, or the browser's certificate, signs in at once.
  useEffect(() => {
    void signIn(token(), true);
  }, [signIn]);

  const setNamespace = useCallback((ns: string) => {
    localStorage.setItem(NAMESPACE_KEY, ns);
    setNamespaceState(ns);
  }, []);
  const notify = useCallback((message: string, kind: 'ok' | 'error' = 'ok') => setNotice({ message, kind, at: Date.now() }), []);
  const signOut = useCallback(() => {
    setToken(undefined);
    setSession(undefined);
    setSignInError(undefined);
  }, []);
  const state = useMemo<AppState | undefined>(
    () => (session ? { user: session.user, resources: session.resources, namespace, setNamespace, notify, signOut } : undefined),
    [session, namespace, setNamespace, notify, signOut],
  );

  const main = useRef<HTMLElement>(null);
  if (!state) {
    return <Login checking={checking} error={signInError} onSignIn={(t) => void signIn(t)} />;
  }
  let view;
  if (route.view === 'list') {
    const resource = findResource(state.resources, route.group, route.version, route.resource);
    view = resource ? (
      <ResourceList key={`${resource.group}/${resource.resource}`} resource={resource} label={route.label} field={route.field} />
    ) : (
      <p role="alert">This server does not serve {route.resource}.</p>
    );
  } else if (route.view === 'object') {
    const resource = findResource(state.resources, route.group, route.version, route.resource);
    view = resource ? (
      <ObjectView
        key={`${resource.resource}/${route.namespace}/${route.name}`}
        resource={resource}
        namespace={route.namespace}
        name={route.name}
        tab={route.tab}
      />
    ) : (
      <p role="alert">This server does not serve {route.resource}.</p>
    );
  } else if (route.view === 'reconciles') {
    view = <Reconciles controller={route.controller} />;
  } else {
    view = <Overview />;
  }
  return (
    <AppContext.Provider value={state}>
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">svc console</span>
        <NamespacePicker />
        <span className="who">
          Signed in as <strong data-testid="username">{state.user.username}</strong>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <div className="frame">
        <Sidebar route={route} />
        <main id="main" ref={main} tabIndex={-1}>
          {view}
        </main>
      </div>
      <div className={`notice ${notice?.kind ?? ''}`} role="status" aria-live="polite" data-testid="notice">
        {notice?.message}
      </div>
    </AppContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
