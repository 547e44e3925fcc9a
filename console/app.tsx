import { useEffect, useState } from 'preact/hooks';

import { onUnauthorized } from './api/client';
import { AccessProvider, useAccess } from './auth/access';
import { type Credentials, forgetCredentials, keepCredentials, readCredentials, takeTokenFromAddress, tokenLinkAsks } from './auth/session';
import { AssistantPanel } from './components/assistant-panel';
import { ErrorBoundary } from './components/error-boundary';
import { Layout } from './components/layout';
import { SignInPage } from './pages/sign-in';
import { TokenLinkPage } from './pages/token-link';
import { type Location, matchRoute, navigate, useLocation } from './router';
import { routes } from './routes';

const sameCredentials = (a: Credentials, b: Credentials) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A token link in the address, when the page loads or when one is opened in this tab later: it
 * signs the tab in ('kept'), unless the tab is signed in with other credentials and the page asks
 * first (deployed): then its credentials are 'offered', and the tab stays as it was until the
 * person chooses.
 */
function receiveTokenLink(): { taken: 'none' | 'kept' } | { taken: 'offered'; credentials: Credentials } {
  const token = takeTokenFromAddress();
  if (token === undefined) return { taken: 'none' };
  const linked: Credentials = { kind: 'bearer', token };
  const current = readCredentials();
  if (current && !sameCredentials(current, linked) && tokenLinkAsks()) return { taken: 'offered', credentials: linked };
  keepCredentials(linked);
  return { taken: 'kept' };
}

const offeredBy = (link: ReturnType<typeof receiveTokenLink>) => (link.taken === 'offered' ? link.credentials : undefined);

/** Sign-in until the tab has credentials the API takes, then the page of the address. */
export function App() {
  const [offered, setOffered] = useState(() => offeredBy(receiveTokenLink()));
  const [credentials, setCredentials] = useState(() => readCredentials() !== undefined);
  const [notice, setNotice] = useState<string>();
  const location = useLocation();
  useEffect(
    () =>
      onUnauthorized((problem) => {
        forgetCredentials();
        setNotice(`Signed out: ${problem.detail}`);
        setCredentials(false);
      }),
    [],
  );
  useEffect(() => {
    const follow = () => {
      const link = receiveTokenLink();
      if (link.taken === 'offered') setOffered(link.credentials);
      if (link.taken === 'kept') setCredentials(true);
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const home = routes.find((route) => route.nav);
  useEffect(() => {
    if (credentials && location.path === '/' && home) navigate(home.path, {}, { replace: true });
  }, [credentials, location.path, home]);

  if (!credentials)
    return (
      <SignInPage
        notice={notice}
        onSignedIn={() => {
          setNotice(undefined);
          setCredentials(true);
        }}
      />
    );
  if (offered)
    return (
      <TokenLinkPage
        offered={offered}
        onChosen={(use) => {
          if (use) keepCredentials(offered);
          setOffered(undefined);
        }}
      />
    );
  const signOut = () => {
    forgetCredentials();
    setNotice('You signed out.');
    setCredentials(false);
  };
  // GET /me is read once for these credentials: other ones (a token link taken) read it again.
  return (
    <AccessProvider key={JSON.stringify(readCredentials() ?? null)}>
      <SignedIn location={location} onSignOut={signOut} />
    </AccessProvider>
  );
}

/** The page of the address in the console's frame, once the caller's access is known; the assistant for those who may ask it. */
function SignedIn({ location, onSignOut }: { location: Location; onSignOut: () => void }) {
  const { can } = useAccess();
  const match = matchRoute(routes, location.path);
  return (
    <Layout
      routes={routes}
      current={match?.route}
      title={match?.route.title ?? 'Not found'}
      onSignOut={onSignOut}
      aside={can('assistant:chat') ? <AssistantPanel /> : undefined}
    >
      <ErrorBoundary key={location.path} onSignOut={onSignOut}>
        {match ? match.route.page({ params: match.params, query: location.query }) : <p role="alert">The console has no page at #{location.path}.</p>}
      </ErrorBoundary>
    </Layout>
  );
}
