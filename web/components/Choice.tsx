import type { SelectHTMLAttributes } from 'react';

interface ChoiceProps<T extends string> extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'> {
  value: T;
  options: readonly T[];
  label: (option: T) => string;
  onChange: (value: T) => void;
}

/**
 * A select over a closed list: what it hands back is one of `options`, typed as such, so no caller casts the
 * DOM's string to its own type.
 */
export function Choice<T extends string>({ value, options, label, onChange, ...rest }: ChoiceProps<T>) {
  return (
    <select
      {...rest}
      value={value}
      onChange={(event) => {
        const picked = options.find((option) => option === event.target.value);
        if (picked !== undefined) onChange(picked);
      }}
    >
      {options.map((option) => (
        <option key={option} value={option}>
          {label(option)}
        </option>
      ))}
    </select>
  );
}
