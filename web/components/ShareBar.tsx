/** A thin bar whose length is `value / max`: a ranking read at a glance, the number beside it. */
export function ShareBar({
  value,
  max,
  tone,
}: {
  value: number;
  max: number;
  tone: 'refusal' | 'avoidable' | 'trim' | 'era';
}) {
  const width = max <= 0 || value <= 0 ? 0 : Math.max(2, Math.round((value / max) * 100));
  return (
    <span className="share-bar" aria-hidden="true">
      <span className={`share-fill fill-${tone}`} style={{ width: `${width}%` }} />
    </span>
  );
}
