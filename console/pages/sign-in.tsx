import { useEffect, useState } from 'preact/hooks';

import { basicAccepted, checkCredentials } from '../api/access';
import { type Credentials, keepCredentials } from '../auth/session';
import { ProblemNotice } from '../components/problem';

/**
 * Sign-in: a bearer token (service-account or technical JWT), or user + access token when the API
 * accepts Basic. The credentials are checked with one call before they are kept for the tab.
 */
export function SignInPage({ notice, onSignedIn }: { notice?: string; onSignedIn: () => void }) {
  const [basic, setBasic] = useState(false);
  const [kind, setKind] = useState<Credentials['kind']>('bearer');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Governance console';
    void basicAccepted().then(setBasic);
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const credentials: Credentials =
      kind === 'bearer' ? { kind, token: value('token').replace(/^bearer\s+/i, '') } : { kind, user: value('user'), accessToken: value('accessToken') };
    setBusy(true);
    setError(undefined);
    try {
      await checkCredentials(credentials);
      keepCredentials(credentials);
      onSignedIn();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Governance console</h1>
      {notice && !error ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form onSubmit={submit} aria-label="Sign in">
        {basic ? (
          <fieldset>
            <legend>Credentials</legend>
            <label>
              <input type="radio" name="kind" checked={kind === 'bearer'} onChange={() => setKind('bearer')} /> Bearer token
            </label>
            <label>
              <input type="radio" name="kind" checked={kind === 'basic'} onChange={() => setKind('basic')} /> User and access token
            </label>
          </fieldset>
        ) : null}
        {kind === 'bearer' ? (
          <div class="field">
            <label for="token">Bearer token (service-account or technical JWT)</label>
            <textarea id="token" name="token" rows={4} required autocomplete="off" spellcheck={false} />
          </div>
        ) : (
          <>
            <div class="field">
              <label for="user">User</label>
              <input id="user" name="user" required autocomplete="username" />
            </div>
            <div class="field">
              <label for="accessToken">Access token</label>
              <input id="accessToken" name="accessToken" type="password" required autocomplete="current-password" />
            </div>
          </>
        )}
        <ProblemNotice error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p class="hint">Kept for this tab only (session storage): closing the tab signs out.</p>
      </form>
    </main>
  );
}
