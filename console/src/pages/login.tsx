// The login page: an API key of the server, checked by one Public API call before it is kept
// (sessionStorage only: closing the tab forgets it).
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiGet, ApiFailure } from '../api.js';
import { keepKey } from '../session.js';

export function LoginPage({ onLogin, reason }: { onLogin: (key: string) => void; reason: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    document.title = 'Sign in · driverbox console';
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    const given = key.trim();
    if (!given) {
      setError('Enter an API key.');
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Any call that needs the key tells whether the server accepts it.
      await apiGet('/agent?page_size=1', given, { notify401: false });
      keepKey(given);
      onLogin(given);
    } catch (failure) {
      const f = failure instanceof ApiFailure ? failure : new ApiFailure(0, String(failure));
      setError(
        f.status === 401
          ? `The server refused this key (${f.message}). Check it and try again.`
          : f.status === 0
            ? f.message
            : `The key could not be checked: ${f.message} (HTTP ${f.status}).`,
      );
      setBusy(false);
      input.current?.select();
      input.current?.focus();
    }
  }

  return (
    <main id="main" class="login">
      <form class="card login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
        <h1 id="login-title">driverbox console</h1>
        <p>Sign in with an API key of this server, the one clients send as X-Api-Key.</p>
        {reason ? (
          <p class="notice" role="status">
            {reason}
          </p>
        ) : null}
        <div class="field">
          <label for="api-key">API key</label>
          <input
            ref={input}
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'api-key-error api-key-hint' : 'api-key-hint'}
            required
          />
          <p id="api-key-hint" class="hint">
            <code>driverbox serve</code> prints where its keys come from (--api-key, DRIVERBOX_API_KEYS, the config file, or the api-key file in its data
            folder). The key is kept in this tab only, until it is closed or you sign out.
          </p>
        </div>
        {error ? (
          <p id="api-key-error" class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
