interface ChoiceToggleProps<T extends string> {
  label: string;
  choices: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}

/** A small segmented switch (24 hours / 7 days, day / week / month): buttons that say which one is on. */
export function ChoiceToggle<T extends string>({ label, choices, value, onChange }: ChoiceToggleProps<T>) {
  return (
    <div role="group" aria-label={label} className="choice-toggle">
      {choices.map((choice) => (
        <button key={choice.value} type="button" className="secondary" aria-pressed={choice.value === value} onClick={() => onChange(choice.value)}>
          {choice.label}
        </button>
      ))}
    </div>
  );
}
