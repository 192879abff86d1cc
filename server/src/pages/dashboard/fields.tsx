// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact';

/** What a field's control carries: the id its label names, and what a screen reader hears with it. */
export interface Described {
  id: string;
  'aria-describedby'?: string;
}

/**
 * The one form row of the dashboard (D50): a label, its control, a hint beneath, and the
 * field's own refusal if any. The control is told its id and what describes it (the hint, the
 * field's refusal, the form's refusal region), so a screen reader hears them all; what
 * follows the control in the row (a button) is `children`.
 */
export function Field(props: {
  id: string;
  label: ComponentChildren;
  control: (described: Described) => ComponentChildren;
  hint?: ComponentChildren;
  /** This field's refusal, said beneath it. */
  error?: string;
  /** The id of the form's refusal region. */
  errorId?: string;
  children?: ComponentChildren;
}) {
  const { id, hint, error } = props;
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : '', props.errorId ?? ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.control(ids ? { id, 'aria-describedby': ids } : { id })}
      {hint ? (
        <span id={`${id}-hint`} class="muted">
          {hint}
        </span>
      ) : null}
      {error ? (
        <span id={`${id}-error`} class="error">
          {error}
        </span>
      ) : null}
      {props.children}
    </div>
  );
}

/** A number field; a value refused by the API is shown as typed (NaN as empty). */
export function NumberField(props: {
  name: string;
  label: string;
  value: number | undefined;
  hint: string;
  /** The id of the form's refusal region. */
  errorId: string;
  step?: number;
  min?: number;
  max?: number;
}) {
  const { name, value } = props;
  return (
    <Field
      id={name}
      label={props.label}
      hint={props.hint}
      errorId={props.errorId}
      control={(d) => (
        <input
          {...d}
          type="number"
          name={name}
          min={props.min ?? 0}
          max={props.max}
          step={props.step ?? 'any'}
          value={value === undefined || Number.isNaN(value) ? '' : String(value)}
        />
      )}
    />
  );
}

/** A choice of one of `options` (value, words), `selected` chosen. */
export function SelectField(props: {
  id: string;
  name?: string;
  label: ComponentChildren;
  options: readonly (readonly [value: string, words: ComponentChildren])[];
  selected?: string;
  hint?: ComponentChildren;
  errorId?: string;
  children?: ComponentChildren;
}) {
  return (
    <Field
      id={props.id}
      label={props.label}
      hint={props.hint}
      errorId={props.errorId}
      control={(d) => (
        <select {...d} name={props.name ?? props.id}>
          {props.options.map(([value, words]) => (
            <option value={value} selected={value === props.selected}>
              {words}
            </option>
          ))}
        </select>
      )}
    >
      {props.children}
    </Field>
  );
}

/** A box and its label; one of a group sharing a name gives its own id and value (sent when checked). */
export function Check(props: { name: string; label: string; checked: boolean; id?: string; value?: string }) {
  const id = props.id ?? props.name;
  return (
    <div class="check">
      <input type="checkbox" id={id} name={props.name} value={props.value} checked={props.checked} />
      <label for={id}>{props.label}</label>
    </div>
  );
}

/** One choice of a radio group sharing a name: its label, and the sentence that says what it does beneath. */
export function Choice(props: { name: string; value: string; label: string; hint: string; checked: boolean }) {
  const id = `${props.name}-${props.value}`;
  return (
    <div class="choice">
      <input
        type="radio"
        id={id}
        name={props.name}
        value={props.value}
        checked={props.checked}
        aria-describedby={`${id}-hint`}
      />
      <div>
        <label for={id}>{props.label}</label>
        <span id={`${id}-hint`} class="muted">
          {props.hint}
        </span>
      </div>
    </div>
  );
}
