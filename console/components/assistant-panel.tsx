import { useRef, useState } from 'preact/hooks';

import { ask, type ChatAnswer, type ChatSource, type PolicyDraft } from '../api/assistant';
import { href } from '../router';
import { FieldErrors, ProblemNotice } from './problem';

interface Turn {
  readonly question: string;
  readonly answer?: ChatAnswer;
  readonly error?: unknown;
}

/** The console's page of a source, where it has one (the CUE guide has none: its title is shown). */
function sourceHref(source: ChatSource): string | undefined {
  switch (source.type) {
    case 'policy':
      return href(`/policies/${source.id}`);
    case 'metric':
      return href(`/metrics/${source.id}`);
    case 'results':
      return href('/overview', { policyId: source.id });
    case 'resource_type':
      return href('/overview', { resourceType: source.id });
    case 'environment':
      return href('/overview', { environment: source.id });
    default:
      return undefined;
  }
}

function Sources({ sources }: { sources: readonly ChatSource[] }) {
  if (sources.length === 0) return null;
  return (
    <div class="sources">
      <span>Sources</span>
      <ul>
        {sources.map((source) => {
          const link = sourceHref(source);
          return (
            <li key={`${source.type}/${source.id}`}>{link ? <a href={link}>{source.title}</a> : <span title="No page in the console">{source.title}</span>}</li>
          );
        })}
      </ul>
    </div>
  );
}

/** A CUE policy the assistant drafted: nothing is saved; its script, whether it compiles, its verdict on the sample. */
function Draft({ draft }: { draft: PolicyDraft }) {
  return (
    <figure class="draft">
      <figcaption>
        Drafted policy (CUE, not saved): {draft.compiles ? 'compiles' : 'does not compile'}
        {draft.test ? (draft.test.satisfiesPolicy ? '; the sample satisfies it' : '; the sample does not satisfy it') : ''}
      </figcaption>
      <pre>
        <code class="language-cue">{draft.cueScript}</code>
      </pre>
      {draft.compileError ? <p class="field-error">{draft.compileError}</p> : null}
      {draft.test && draft.test.errors.length > 0 ? (
        <ul class="field-error">
          {draft.test.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      ) : null}
    </figure>
  );
}

/**
 * The assistant beside every page: a question goes to the chat endpoint; its answer, sources (links
 * to the console's pages) and drafted policy are shown, and the next question continues the
 * conversation (its conversationId) until "New conversation".
 */
export function AssistantPanel() {
  const [turns, setTurns] = useState<readonly Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const conversationId = turns.findLast((turn) => turn.answer)?.answer?.conversationId;
  const lastError = turns.at(-1)?.error;

  const submit = async (event: Event) => {
    event.preventDefault();
    const question = String(new FormData(event.currentTarget as HTMLFormElement).get('question') ?? '');
    setBusy(true);
    try {
      const answer = await ask(question, conversationId);
      setTurns((previous) => [...previous, { question, answer }]);
      form.current?.reset();
    } catch (error) {
      setTurns((previous) => [...previous, { question, error }]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="assistant-panel" aria-labelledby="assistant-heading">
      <h2 id="assistant-heading">Assistant</h2>
      <ol class="turns" aria-live="polite">
        {turns.map((turn, index) => (
          <li key={index} class="turn">
            <p class="question">{turn.question}</p>
            {turn.answer ? (
              <div class="answer">
                <p>{turn.answer.answer}</p>
                <Sources sources={turn.answer.sources} />
                {turn.answer.draft ? <Draft draft={turn.answer.draft} /> : null}
              </div>
            ) : (
              <ProblemNotice error={turn.error} />
            )}
          </li>
        ))}
      </ol>
      <form ref={form} onSubmit={submit} aria-label="Ask the assistant">
        <div class="field">
          <label for="assistant-question">{conversationId ? 'Ask a follow-up question' : 'Ask about policies, results, CUE'}</label>
          <textarea id="assistant-question" name="question" rows={3} required {...(lastError ? { 'aria-describedby': 'assistant-question-error' } : {})} />
          <FieldErrors id="assistant-question-error" error={lastError} path="query" />
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Asking…' : 'Ask'}
          </button>
          {turns.length > 0 ? (
            <button type="button" class="secondary" onClick={() => setTurns([])} disabled={busy}>
              New conversation
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
