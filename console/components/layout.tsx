import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

import { AccessUnknown, useAccess } from '../auth/access';
import { href, type Route } from '../router';

interface LayoutProps {
  readonly routes: readonly Route[];
  /** The route shown (its navigation entry is marked current), if any. */
  readonly current?: Route;
  readonly title: string;
  readonly onSignOut: () => void;
  /** The assistant panel, beside the page (below it on a narrow screen), opened and closed by a button of the top bar. */
  readonly aside?: ComponentChildren;
  readonly children: ComponentChildren;
}

const ASSISTANT_KEY = 'cgp.console.assistant';
/** Wide enough for the widest list beside the assistant panel: narrower, the panel starts closed and the page has the width. */
const WIDE = '(min-width: 1440px)';

/** Whether the assistant panel is open: as the person left it in this tab, else open on a wide screen only. */
function assistantStartsOpen(): boolean {
  const chosen = sessionStorage.getItem(ASSISTANT_KEY);
  return chosen === null ? matchMedia(WIDE).matches : chosen === 'open';
}

/** The frame of every signed-in page: navigation (what the caller may reach), who is signed in and their roles, the page, the assistant's place. */
export function Layout({ routes, current, title, onSignOut, aside, children }: LayoutProps) {
  const { me, can } = useAccess();
  const heading = useRef<HTMLHeadingElement>(null);
  // A new page: its title is announced and the keyboard starts there.
  useEffect(() => {
    document.title = `${title} · Governance console`;
    heading.current?.focus();
  }, [title]);
  const [assistantOpen, setAssistantOpen] = useState(assistantStartsOpen);
  const toggleAssistant = () => {
    sessionStorage.setItem(ASSISTANT_KEY, assistantOpen ? 'closed' : 'open');
    setAssistantOpen(!assistantOpen);
  };
  const skipToContent = (event: Event) => {
    event.preventDefault();
    heading.current?.focus();
  };
  return (
    <div class={aside && assistantOpen ? 'shell with-aside' : 'shell'}>
      <a class="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Governance console</span>
        <nav aria-label="Main">
          <ul>
            {routes
              .filter((route) => route.nav && (!route.permission || can(route.permission)))
              .map((route) => (
                <li key={route.path}>
                  <a href={href(route.path)} aria-current={route === current ? 'page' : undefined}>
                    {route.nav}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        {me ? (
          <p class="who" title={`${me.subject} (${me.method}): ${me.roles.join(', ') || 'no role'}`}>
            <span class="visually-hidden">Signed in as </span>
            <span class="who-subject">{me.subject}</span> <span class="who-roles">{me.roles.join(', ') || 'no role'}</span>
          </p>
        ) : null}
        {aside ? (
          <button type="button" class="assistant-toggle" aria-expanded={assistantOpen} aria-controls="assistant" onClick={toggleAssistant}>
            Assistant
          </button>
        ) : null}
        <button type="button" class="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        <AccessUnknown />
        {children}
      </main>
      {aside ? (
        // Hidden, not removed, while closed: the conversation is kept.
        <aside id="assistant" class="assistant" aria-label="Assistant" hidden={!assistantOpen}>
          {aside}
        </aside>
      ) : null}
    </div>
  );
}
