/** Said under a storm list while the storms of events stored before storms were kept are still being built. */
export function StormsBuilding({ complete }: { complete: boolean }) {
  if (complete) return null;
  return (
    <p className="muted panel-foot">
      Storms of events stored before this version are still being built: some may be missing.
    </p>
  );
}
