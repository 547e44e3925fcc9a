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
function Field({ name, label, error, errorPath, children }: FieldProps & { children: ComponentChildren }) {
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

export function TextField(props: FieldProps & { readonly value: string; readonly list?: string; readonly required?: boolean }) {
  const { name, value, list, required, error, errorPath } = props;
  return (
    <Field {...props}>
      <input id={name} name={name} type="text" value={value} list={list} required={required} {...describedBy(name, error, errorPath)} />
    </Field>
  );
}

export function SelectField(
  props: FieldProps & { readonly value: string; readonly options: readonly string[]; readonly anyLabel?: string; readonly onChange?: (event: Event) => void },
) {
  const { name, value, options, anyLabel, onChange, error, errorPath } = props;
  return (
    <Field {...props}>
      <select id={name} name={name} value={value} onChange={onChange} {...describedBy(name, error, errorPath)}>
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </Field>
  );
}
