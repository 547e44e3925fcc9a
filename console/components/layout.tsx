import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

import { href, type Route } from '../router';

interface LayoutProps {
  readonly routes: readonly Route[];
  /** The route shown (its navigation entry is marked current), if any. */
  readonly current?: Route;
  readonly title: string;
  readonly onSignOut: () => void;
  /** The assistant panel, beside the page (below it on a narrow screen). */
  readonly aside?: ComponentChildren;
  readonly children: ComponentChildren;
}

/** The frame of every signed-in page: navigation, the page, the assistant's place. */
export function Layout({ routes, current, title, onSignOut, aside, children }: LayoutProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A new page: its title is announced and the keyboard starts there.
  useEffect(() => {
    document.title = `${title} · Governance console`;
    heading.current?.focus();
  }, [title]);
  const skipToContent = (event: Event) => {
    event.preventDefault();
    heading.current?.focus();
  };
  return (
    <div class={aside ? 'shell with-aside' : 'shell'}>
      <a class="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Governance console</span>
        <nav aria-label="Main">
          <ul>
            {routes
              .filter((route) => route.nav)
              .map((route) => (
                <li key={route.path}>
                  <a href={href(route.path)} aria-current={route === current ? 'page' : undefined}>
                    {route.nav}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {children}
      </main>
      {aside ? (
        <aside class="assistant" aria-label="Assistant">
          {aside}
        </aside>
      ) : null}
    </div>
  );
}
