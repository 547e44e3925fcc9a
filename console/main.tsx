import './language-guard';
import './styles.css';

import { render } from 'preact';

import { App } from './app';
import { ErrorBoundary } from './components/error-boundary';

const root = document.getElementById('app') as HTMLElement;
// The page's own message for a script that did not load (index.html): rendered over, it would keep its role.
root.replaceChildren();
render(
  <ErrorBoundary framed>
    <App />
  </ErrorBoundary>,
  root,
);
