// The breadcrumb above a page's heading: the pages above it, each a link, then the page itself.
import type { ComponentChildren } from 'preact';
import { href } from '../router.js';

export interface Crumb {
  label: ComponentChildren;
  href: string;
}

export function Breadcrumb({ trail, current }: { trail: Crumb[]; current: ComponentChildren }) {
  return (
    <nav aria-label="Breadcrumb" class="breadcrumb">
      <ol>
        {trail.map((crumb, i) => (
          <li key={i}>
            <a href={crumb.href}>{crumb.label}</a>
          </li>
        ))}
        <li aria-current="page">{current}</li>
      </ol>
    </nav>
  );
}

/** Agents › the agent: the trail above an agent's devices and runs. */
export function agentTrail(agentId: number, agentName: string): Crumb[] {
  return [
    { label: 'Agents', href: href({ page: 'agents' }) },
    { label: agentName, href: href({ page: 'agent', agentId }) },
  ];
}
