// The driver library (listCustomDrivers, getCustomDriver of each): name, validity, version,
// parameters, actions and the devices each driver is applied to.
import { href } from '../router.js';
import { loadLibrary } from '../driver-data.js';
import { useAsync } from '../use-api.js';
import { ErrorNotice, Loading } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';

export function ValidBadge({ valid }: { valid: boolean }) {
  return <span class={`badge badge-${valid ? 'up' : 'down'}`}>{valid ? 'valid' : 'invalid'}</span>;
}

export function DriversPage({ apiKey }: { apiKey: string }) {
  const library = useAsync((signal) => loadLibrary(apiKey, signal), [apiKey]);
  const drivers = library.data;
  return (
    <>
      <PageHeading focusKey="drivers">Drivers</PageHeading>
      <p class="meta">The custom drivers of the store's library: open one to see where it is applied, edit it and run it.</p>
      {library.error ? <ErrorNotice error={library.error} what="The driver library" /> : null}
      {!drivers && !library.error ? <Loading what="the driver library" /> : null}
      {drivers && drivers.length === 0 ? (
        <p class="notice">
          The library is empty: add a driver with <code>npx driverbox drivers add</code> or the Public API (<code>createCustomDriver</code>).
        </p>
      ) : null}
      {drivers && drivers.length > 0 ? (
        <div class="table-wrap">
          <table class="list drivers">
            <caption>
              {drivers.length} driver{drivers.length === 1 ? '' : 's'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Driver</th>
                <th scope="col">Code</th>
                <th scope="col">Parameters</th>
                <th scope="col" class="wide-only">Actions</th>
                <th scope="col">Devices</th>
              </tr>
            </thead>
            <tbody>
              {drivers.map((d) => (
                <tr key={d.id} data-driver-id={d.id}>
                  <th scope="row">
                    <a href={href({ page: 'driver', driverId: d.id })}>{d.name}</a>
                    {d.description ? <span class="path">{d.description}</span> : null}
                  </th>
                  <td>
                    <ValidBadge valid={d.is_valid} /> <span class="mono">v{d.version}</span>
                  </td>
                  <td>{d.parameters?.length ? d.parameters.map((p) => <span key={p.id} class="mono chip">{p.name}</span>) : <span class="meta">none</span>}</td>
                  <td class="wide-only">{['get_status', ...d.actions.map((a) => a.label)].join(', ')}</td>
                  <td class="num">{d.device_ids.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
