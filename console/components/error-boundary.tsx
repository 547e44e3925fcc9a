import { Component, type ComponentChildren } from 'preact';

import { forgetCredentials } from '../auth/session';

interface ErrorBoundaryProps {
  /** Signs the tab out; absent (the boundary around the whole console): forgets the credentials and loads the page again. */
  readonly onSignOut?: () => void;
  /** Around the whole console: the failure is shown in a frame of its own, the console's being what failed. */
  readonly framed?: boolean;
  readonly children: ComponentChildren;
}

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

const reload = (event: Event) => {
  event.preventDefault();
  location.reload();
};

const signOutAndReload = () => {
  forgetCredentials();
  location.reload();
};

/**
 * No blank page: an error while rendering (or in an effect) below this boundary shows what failed,
 * a reload link and a sign-out instead of the page, and goes to the browser's console. App keys
 * the one around a page by its route, so another page starts afresh.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, { error?: unknown }> {
  static override getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown) {
    console.error('The governance console could not show this page:', error);
  }

  override render() {
    if (!('error' in this.state)) return this.props.children;
    const failure = (
      <section class="problem render-failure" role="alert">
        <h2>This page could not be shown</h2>
        <p>
          <code>{describe(this.state.error)}</code>
        </p>
        <p>
          <a href={location.href} onClick={reload}>
            Reload the page
          </a>{' '}
          or{' '}
          <button type="button" class="secondary" onClick={this.props.onSignOut ?? signOutAndReload}>
            Sign out
          </button>
        </p>
      </section>
    );
    if (!this.props.framed) return failure;
    return (
      <div class="shell">
        <header class="top">
          <span class="brand">Governance console</span>
        </header>
        <main id="main">{failure}</main>
      </div>
    );
  }
}
