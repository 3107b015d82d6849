import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Choice } from '../components/Choice.tsx';
import { formatTime } from '../format.ts';
import { REFRESH_CHOICES, REFRESH_MS, type RefreshChoice } from '../url-state.ts';

const LABEL: Readonly<Record<RefreshChoice, string>> = {
  off: 'Auto-refresh off',
  '15s': 'Every 15 s',
  '60s': 'Every 60 s',
};

/** Refetches every shown query on the chosen interval: one clock for all panels, so they move together. */
export function useAutoRefresh(choice: RefreshChoice): void {
  const client = useQueryClient();
  useEffect(() => {
    const ms = REFRESH_MS[choice];
    if (ms === null) return;
    const timer = window.setInterval(() => client.invalidateQueries(), ms);
    return () => window.clearInterval(timer);
  }, [client, choice]);
}

function useLastUpdate(): number | null {
  const client = useQueryClient();
  const [at, setAt] = useState<number | null>(null);
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type === 'updated' && event.action.type === 'success') setAt(Date.now());
      }),
    [client],
  );
  return at;
}

interface RefreshPickerProps {
  choice: RefreshChoice;
  onChange: (choice: RefreshChoice) => void;
}

export function RefreshPicker({ choice, onChange }: RefreshPickerProps) {
  const client = useQueryClient();
  const fetching = useIsFetching() > 0;
  const updated = useLastUpdate();
  return (
    <div className="refresh">
      <Choice
        aria-label="Auto-refresh"
        value={choice}
        options={REFRESH_CHOICES}
        label={(option) => LABEL[option]}
        onChange={onChange}
      />
      <button type="button" className="quiet" onClick={() => client.invalidateQueries()} disabled={fetching}>
        Refresh
      </button>
      <span className="updated muted" role="status">
        {fetching ? 'Updating…' : updated === null ? '\u00a0' : `Updated ${formatTime(updated)} UTC`}
      </span>
    </div>
  );
}
