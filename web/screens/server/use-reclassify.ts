import { useMutation, useQueryClient } from '@tanstack/react-query';
import { invalidateAfterReclassify } from '../../queries/invalidate.ts';

/** What a change to a server's contract answers: how many stored events it moved to another bucket. */
export interface Reclassified {
  reclassified: number;
}

/** Saves a change to the server's contract; once saved, every count the reclassification can move is reloaded. */
export function useReclassify<T>(put: (value: T) => Promise<Reclassified>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: put, onSuccess: () => invalidateAfterReclassify(client) });
}

export type ReclassifyMutation<T> = ReturnType<typeof useReclassify<T>>;
