import type { ComponentChildren } from 'preact';

import { ApiProblem } from '../api/client';
import { FieldErrors } from './problem';

interface FieldProps {
  /** The input's id and name. */
  readonly name: string;
  readonly label: string;
  /** The failed call whose field errors belong here, and the field's path in them (`query.text`, `name`). */
  readonly error?: unknown;
  readonly errorPath?: string;
}

const invalid = (error: unknown, path?: string) => path !== undefined && error instanceof ApiProblem && error.errorsOf(path).length > 0;

/** A labelled control with the API's messages about it beside it. */
export function Field({ name, label, error, errorPath, children }: FieldProps & { children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={name}>{label}</label>
      {children}
      {errorPath !== undefined && <FieldErrors id={`${name}-error`} error={error} path={errorPath} />}
    </div>
  );
}

const describedBy = (name: string, error: unknown, path?: string) =>
  invalid(error, path) ? { 'aria-invalid': true, 'aria-describedby': `${name}-error` } : {};

/*
 * The fields are uncontrolled: they start at `defaultValue` and keep what is typed through any
 * re-render (data arriving meanwhile); a form reads them with FormData and is keyed by what it
 * shows, so that new values mount it anew.
 */

export function TextField(props: FieldProps & { readonly defaultValue: string; readonly list?: string; readonly required?: boolean }) {
  const { name, defaultValue, list, required, error, errorPath } = props;
  return (
    <Field {...props}>
      <input id={name} name={name} type="text" defaultValue={defaultValue} list={list} required={required} {...describedBy(name, error, errorPath)} />
    </Field>
  );
}

export function SelectField(
  props: FieldProps & {
    readonly defaultValue: string;
    readonly options: readonly string[];
    readonly anyLabel?: string;
    readonly onChange?: (event: Event) => void;
  },
) {
  const { name, defaultValue, options, anyLabel, onChange, error, errorPath } = props;
  return (
    <Field {...props}>
      <select id={name} name={name} onChange={onChange} {...describedBy(name, error, errorPath)}>
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        {options.map((option) => (
          <option key={option} value={option} selected={option === defaultValue}>
            {option}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function TextAreaField(props: FieldProps & { readonly defaultValue: string; readonly rows?: number; readonly placeholder?: string }) {
  const { name, defaultValue, rows = 4, placeholder, error, errorPath } = props;
  return (
    <Field {...props}>
      <textarea id={name} name={name} rows={rows} placeholder={placeholder} defaultValue={defaultValue} {...describedBy(name, error, errorPath)} />
    </Field>
  );
}
