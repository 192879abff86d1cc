// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */

/**
 * Inputs the settings forms share (D50): each with its label, its hint, and the id of the
 * region where the API's refusal of the form is said, so a screen reader hears both.
 */

/** A number input; a value refused by the API is shown as typed (NaN as empty). */
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
    <>
      <label for={name}>{props.label}</label>
      <input
        type="number"
        id={name}
        name={name}
        min={props.min ?? 0}
        max={props.max}
        step={props.step ?? 'any'}
        value={value === undefined || Number.isNaN(value) ? '' : String(value)}
        aria-describedby={`${name}-hint ${props.errorId}`}
      />
      <span id={`${name}-hint`} class="muted">
        {props.hint}
      </span>
    </>
  );
}

export function Check(props: { name: string; label: string; checked: boolean }) {
  return (
    <div class="check">
      <input type="checkbox" id={props.name} name={props.name} checked={props.checked} />
      <label for={props.name}>{props.label}</label>
    </div>
  );
}
