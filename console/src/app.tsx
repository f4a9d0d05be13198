// The console's shell: the login gate, the header with sign-out, the page of the route.
import { useEffect, useState } from 'preact/hooks';
import { whenUnauthorized } from './api.js';
import { forgetKey, storedKey } from './session.js';
import { href, navigate, useRoute, type Route } from './router.js';
import { LoginPage } from './pages/login.js';
import { AgentsPage } from './pages/agents.js';
import { AgentPage } from './pages/agent.js';
import { DevicePage } from './pages/device.js';
import { RunsPage } from './pages/runs.js';
import { RunPage } from './pages/run.js';
import { SchedulePage } from './pages/schedule.js';
import { DriversPage } from './pages/drivers.js';
import { DriverPage } from './pages/driver.js';
import { EditorPage } from './pages/editor.js';
import { markNavigated, PageHeading } from './components/page-heading.js';

function Page({ route, apiKey }: { route: Route; apiKey: string }) {
  switch (route.page) {
    case 'agents':
      return <AgentsPage apiKey={apiKey} />;
    case 'agent':
      return <AgentPage apiKey={apiKey} agentId={route.agentId} />;
    case 'device':
      return <DevicePage apiKey={apiKey} agentId={route.agentId} deviceId={route.deviceId} variableId={route.variableId} window={route.window} />;
    case 'runs':
      return <RunsPage apiKey={apiKey} agentId={route.agentId} filters={route.filters} />;
    case 'run':
      return <RunPage apiKey={apiKey} agentId={route.agentId} runId={route.runId} />;
    case 'schedule':
      return <SchedulePage apiKey={apiKey} agentId={route.agentId} />;
    case 'drivers':
      return <DriversPage apiKey={apiKey} />;
    case 'driver':
      return <DriverPage apiKey={apiKey} driverId={route.driverId} />;
    case 'editor':
      // Keyed by the driver: another driver's editor starts afresh (its code, no result of the last one).
      return <EditorPage key={route.driverId} apiKey={apiKey} driverId={route.driverId} agentId={route.agentId} deviceId={route.deviceId} simulated={route.simulated} />;
    case 'login':
      return null;
    case 'not-found':
      return (
        <>
          <PageHeading focusKey="not-found">Page not found</PageHeading>
          <p>
            The console has no page <code>{route.path}</code>. <a href={href({ page: 'agents' })}>See the agents.</a>
          </p>
        </>
      );
  }
}

export function App() {
  const route = useRoute();
  const [apiKey, setApiKey] = useState<string | null>(() => storedKey());
  const [reason, setReason] = useState<string | null>(null);

  useEffect(() => {
    const onHash = () => markNavigated();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    whenUnauthorized(() => {
      forgetKey();
      setApiKey(null);
      setReason('The server no longer accepts the key of this session: sign in again.');
    });
  }, []);

  // Without a key every page is the login page; the page asked for is shown after it.
  useEffect(() => {
    if (!apiKey && route.page !== 'login') {
      const next = location.hash && location.hash !== '#/' ? location.hash.slice(1) : null;
      navigate({ page: 'login', next }, { replace: true });
    } else if (apiKey && route.page === 'login') {
      navigate(route.next && route.next.startsWith('/') ? `#${route.next}` : '#/', { replace: true });
    }
  }, [apiKey, route]);

  if (!apiKey) {
    return (
      <LoginPage
        reason={reason}
        onLogin={(key) => {
          setReason(null);
          setApiKey(key);
        }}
      />
    );
  }

  function signOut() {
    forgetKey();
    setReason('Signed out.');
    setApiKey(null);
  }

  return (
    <>
      <a class="skip-link" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={href({ page: 'agents' })}>
          driverbox <span>console</span>
        </a>
        <nav aria-label="Main">
          <a href={href({ page: 'agents' })} aria-current={route.page === 'agents' ? 'page' : undefined}>
            Agents
          </a>
          <a href={href({ page: 'drivers' })} aria-current={route.page === 'drivers' || route.page === 'driver' || route.page === 'editor' ? 'page' : undefined}>
            Drivers
          </a>
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} apiKey={apiKey} />
      </main>
    </>
  );
}
