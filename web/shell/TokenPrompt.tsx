import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorNote } from '../components/ErrorNote.tsx';
import { checkToken } from '../queries/token.ts';
import { ApiFailure } from '../query-client.ts';
import { saveToken, useTokenPrompt } from '../token.ts';

/**
 * Asks for the server's token when the API answered 401 (a server started with LENS_TOKEN). The token is tried
 * first, kept only once the server takes it, and then every screen loads again with it.
 */
export function TokenPrompt() {
  const reason = useTokenPrompt();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (reason !== null && dialog.current?.open === false) dialog.current.showModal();
    if (reason === null) dialog.current?.close();
  }, [reason]);
  return (
    <dialog
      ref={dialog}
      className="token-prompt"
      aria-labelledby="token-title"
      // Without a token no screen can load; closing the prompt would leave only errors.
      onCancel={(event) => event.preventDefault()}
    >
      {reason !== null ? <TokenForm refused={reason === 'refused'} /> : null}
    </dialog>
  );
}

function TokenForm({ refused }: { refused: boolean }) {
  const client = useQueryClient();
  const [token, setToken] = useState('');
  const [state, setState] = useState<{ checking: boolean; error: unknown }>({ checking: false, error: null });
  const submit = async () => {
    setState({ checking: true, error: null });
    try {
      await checkToken(token.trim());
    } catch (error) {
      setState({ checking: false, error });
      return;
    }
    saveToken(token.trim());
    await client.invalidateQueries();
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h2 id="token-title">This server needs a token</h2>
      <p className="muted">
        {refused ? 'The server no longer takes the token this tab had. ' : ''}
        It was started with <code>LENS_TOKEN</code>: enter that token. This tab keeps it until it is closed.
      </p>
      <label>
        Token
        <input
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
      </label>
      {state.error instanceof ApiFailure && state.error.code === 'unauthenticated' ? (
        <p role="alert" className="form-fault">
          The server refused that token.
        </p>
      ) : state.error !== null ? (
        <ErrorNote error={state.error} what="the token" action="check" />
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={state.checking || token.trim() === ''}>
          {state.checking ? 'Checking…' : 'Sign in'}
        </button>
      </div>
    </form>
  );
}
