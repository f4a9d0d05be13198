// Small shared pieces: the status badge, the loading and error notices.
import type { ComponentChildren } from 'preact';
import type { ApiFailure } from '../api.js';

export function StatusBadge({ status }: { status: string | undefined }) {
  if (!status) return <span class="badge badge-unknown">unknown</span>;
  const kind = status === 'ONLINE' ? 'up' : status === 'DOWN' || status === 'OFFLINE' ? 'down' : 'unknown';
  return <span class={`badge badge-${kind}`}>{status.toLowerCase()}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="notice" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorNotice({ error, what, children }: { error: ApiFailure; what: string; children?: ComponentChildren }) {
  return (
    <div class="notice notice-error" role="alert">
      <p>
        {what} could not be loaded: {error.message}
        {error.status ? ` (HTTP ${error.status})` : ''}
      </p>
      {children}
    </div>
  );
}

/**
 * What is still coming of one answer (`useApi`, `useAsync`): its error, else "Loading …" until
 * it has data. `what` is said as loading names it ("the driver", "runs"); the error says it
 * with "The" ("The driver", "The runs").
 */
export function LoadNotices({ of: state, what }: { of: { data: unknown; error: ApiFailure | null }; what: string }) {
  if (state.error) return <ErrorNotice error={state.error} what={`The ${what.replace(/^the /, '')}`} />;
  return state.data === null ? <Loading what={what} /> : null;
}
