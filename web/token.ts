import { useSyncExternalStore } from 'react';

/**
 * The bearer token of a server started with LENS_TOKEN. It lives in sessionStorage: a reload keeps it, closing the
 * tab forgets it, and no other site or tab can read it.
 */
const KEY = 'refusal-lens.token';

function storedToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null; // storage can be switched off; the prompt then asks again after each reload
  }
}

/** The headers every API call carries: the token when one was given. */
export function authHeaders(): Record<string, string> {
  const token = storedToken();
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

export function saveToken(token: string): void {
  try {
    window.sessionStorage.setItem(KEY, token);
  } catch {
    // Without storage the token cannot outlive this page; the calls still fail visibly and ask again.
  }
  setPrompt(null);
}

/** Why the prompt is open: no token was given yet, or the one given was refused; null while the API answers. */
export type PromptReason = 'missing' | 'refused' | null;

let reason: PromptReason = null;
const listeners = new Set<() => void>();

function setPrompt(next: PromptReason): void {
  if (next === reason) return;
  reason = next;
  for (const listener of listeners) listener();
}

/**
 * Called on a 401 with the Authorization header the refused call carried. A call that carried another token than
 * the one now kept (sent before it was given, or a token being tried) says nothing about the kept one.
 */
export function tokenRefused(sent: string | null): void {
  if (sent !== (authHeaders().authorization ?? null)) return;
  setPrompt(sent === null ? 'missing' : 'refused');
}

export function useTokenPrompt(): PromptReason {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => reason,
  );
}
