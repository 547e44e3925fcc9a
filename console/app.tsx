import { useEffect, useState } from 'preact/hooks';

import { onUnauthorized } from './api/client';
import { forgetCredentials, readCredentials, takeTokenFromAddress } from './auth/session';
import { AssistantPanel } from './components/assistant-panel';
import { Layout } from './components/layout';
import { SignInPage } from './pages/sign-in';
import { matchRoute, navigate, useLocation } from './router';
import { routes } from './routes';

function signedIn(): boolean {
  takeTokenFromAddress();
  return readCredentials() !== undefined;
}

/** Sign-in until the tab has credentials the API takes, then the page of the address. */
export function App() {
  const [credentials, setCredentials] = useState(signedIn);
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
  const match = matchRoute(routes, location.path);
  const signOut = () => {
    forgetCredentials();
    setNotice('You signed out.');
    setCredentials(false);
  };
  return (
    <Layout routes={routes} current={match?.route} title={match?.route.title ?? 'Not found'} onSignOut={signOut} aside={<AssistantPanel />}>
      {match ? match.route.page({ params: match.params, query: location.query }) : <p role="alert">The console has no page at #{location.path}.</p>}
    </Layout>
  );
}
