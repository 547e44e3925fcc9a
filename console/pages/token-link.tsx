import { useEffect } from 'preact/hooks';

import { type Credentials, readCredentials, subjectOf } from '../auth/session';

const named = (credentials: Credentials | undefined) => {
  const subject = credentials && subjectOf(credentials);
  return subject ? <strong>{subject}</strong> : 'someone the console cannot name';
};

/**
 * A token link opened in a tab that is signed in already (deployed): the person chooses whether the
 * link's token replaces the tab's credentials. Nothing is replaced until they do.
 */
export function TokenLinkPage({ offered, onChosen }: { offered: Credentials; onChosen: (use: boolean) => void }) {
  useEffect(() => {
    document.title = 'Sign in with this link? · Governance console';
  }, []);
  return (
    <main class="sign-in token-link">
      <h1>Sign in with this link?</h1>
      <p>
        The link you opened carries a token for {named(offered)}. This tab is signed in already, as {named(readCredentials())}.
      </p>
      <p class="hint">Use the link&apos;s token only if you asked for this link: a link from someone else can sign you in as them.</p>
      <p class="actions">
        <button type="button" onClick={() => onChosen(false)}>
          Stay signed in as before
        </button>{' '}
        <button type="button" class="secondary" onClick={() => onChosen(true)}>
          Sign in with the link&apos;s token
        </button>
      </p>
    </main>
  );
}
