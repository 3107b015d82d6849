/** A frame as indented JSON text; React escapes it, nothing from the data is ever injected as HTML. */
export function Json({ value, label, missing }: { value: unknown; label: string; missing?: string }) {
  if (value === null || value === undefined) {
    return (
      <p className="muted">
        {label}: {missing ?? 'not logged'}.
      </p>
    );
  }
  return (
    <figure className="json">
      <figcaption>{label}</figcaption>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </figure>
  );
}
