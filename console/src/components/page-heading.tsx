// The page's h1. After a navigation inside the console it takes the focus, so keyboard and
// screen-reader users start at the new page's top (the first page load leaves the focus alone).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let navigated = false;
export function markNavigated(): void {
  navigated = true;
}

export function PageHeading({ children, focusKey }: { children: ComponentChildren; focusKey: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (navigated) ref.current?.focus({ preventScroll: false });
    document.title = `${ref.current?.textContent ?? ''} · driverbox console`;
  }, [focusKey]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
