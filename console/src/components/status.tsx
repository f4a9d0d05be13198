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
