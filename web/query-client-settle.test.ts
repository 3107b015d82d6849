import { afterEach, expect, it, vi } from 'vitest';
import { queryClient, readBehindAnalysis, SETTLE_CHECK_MS, settleAnalysis, unwrap } from './query-client.ts';

const answer = (lagMs: number) =>
  new Response('{}', { headers: { 'content-type': 'application/json', 'lens-analysis-lag-ms': String(lagMs) } });

afterEach(() => {
  settleAnalysis(0);
  vi.restoreAllMocks();
  vi.useRealTimers();
});

it('reads every answer again once /health says the analysis caught up with one read behind it', async () => {
  vi.useFakeTimers();
  const invalidate = vi.spyOn(queryClient, 'invalidateQueries').mockResolvedValue();
  const refetch = vi.spyOn(queryClient, 'refetchQueries').mockResolvedValue();
  await unwrap(answer(350));
  expect(readBehindAnalysis()).toBe(true);
  // /health is asked soon, not at its next 5 s poll.
  vi.advanceTimersByTime(SETTLE_CHECK_MS);
  expect(refetch).toHaveBeenCalledWith({ queryKey: ['health'] });

  settleAnalysis(120);
  expect(invalidate).not.toHaveBeenCalled();
  settleAnalysis(0);
  expect(invalidate).toHaveBeenCalledTimes(1);
  const filters = invalidate.mock.calls[0]?.[0] as unknown as {
    predicate: (query: { queryKey: unknown[] }) => boolean;
  };
  const { predicate } = filters;
  expect(predicate({ queryKey: ['health'] })).toBe(false);
  expect(predicate({ queryKey: ['summary', 'range'] })).toBe(true);
  expect(readBehindAnalysis()).toBe(false);
});

it('reads nothing again when every answer was settled', async () => {
  const invalidate = vi.spyOn(queryClient, 'invalidateQueries').mockResolvedValue();
  await unwrap(answer(0));
  await unwrap(new Response('{}', { headers: { 'content-type': 'application/json' } }));
  settleAnalysis(0);
  expect(readBehindAnalysis()).toBe(false);
  expect(invalidate).not.toHaveBeenCalled();
});
