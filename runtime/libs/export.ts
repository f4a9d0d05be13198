// Each library bundle ends by placing its exports in the slot the lazy loader reads.
import { LIB_SLOT } from '../lazy-libs';

export function exportLib(value: unknown): void {
  (globalThis as Record<string, unknown>)[LIB_SLOT] = value;
}
