import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState, type Text } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';

import { ApiProblem } from '../api/client';
import { cueLanguage } from './cue-language';

/** Where a field error points in the text: its line (1-based) and column, to the end of that line. */
function diagnosticsOf(doc: Text, error: unknown, path: string): Diagnostic[] {
  if (!(error instanceof ApiProblem)) return [];
  return error.errors
    .filter((fieldError) => fieldError.path === path)
    .map((fieldError) => {
      const line = doc.line(Math.min(Math.max(fieldError.line ?? 1, 1), doc.lines));
      const from = Math.min(line.from + Math.max((fieldError.column ?? 1) - 1, 0), line.to);
      return { from, to: line.to > from ? line.to : from, severity: 'error', message: fieldError.message };
    });
}

interface CueEditorProps {
  /** The form field that carries the text (a hidden input, read with the form). */
  readonly name: string;
  readonly label: string;
  readonly defaultValue: string;
  /** The failed save whose errors about `name` are shown at their line. */
  readonly error?: unknown;
}

/**
 * CodeMirror 6 with CUE highlighting and the API's compile errors as lint diagnostics at their
 * line. Mounted in a shadow root: its styles are a constructed style sheet there, which the
 * console's Content-Security-Policy (no inline <style>) allows.
 */
export function CueEditor({ name, label, defaultValue, error }: CueEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const view = useRef<EditorView>(undefined);

  useEffect(() => {
    const field = input.current;
    if (!host.current || !field) return;
    const shadow = host.current.attachShadow({ mode: 'open' });
    const parent = shadow.appendChild(document.createElement('div'));
    field.value = defaultValue;
    view.current = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({
        doc: defaultValue,
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          cueLanguage,
          syntaxHighlighting(defaultHighlightStyle),
          lintGutter(),
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) field.value = update.state.doc.toString();
          }),
          EditorView.theme({ '&': { minHeight: '12rem', fontSize: '0.9rem' }, '.cm-scroller': { fontFamily: 'ui-monospace, monospace' } }),
        ],
      }),
    });
    return () => view.current?.destroy();
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor) editor.dispatch(setDiagnostics(editor.state, diagnosticsOf(editor.state.doc, error, name)));
  }, [error]);

  return (
    <>
      <input type="hidden" name={name} ref={input} />
      <div class="code-editor" ref={host} data-editor={name} />
    </>
  );
}
