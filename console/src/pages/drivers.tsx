// The driver library (listCustomDrivers, getCustomDriver of each): name, validity, version,
// parameters, actions and the devices each driver is applied to.
import { href } from '../router.js';
import { loadLibrary } from '../driver-data.js';
import { count } from '../format.js';
import { useAsync } from '../use-api.js';
import { LoadNotices } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { ListTable } from '../components/list-table.js';

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
      <LoadNotices of={library} what="the driver library" />
      {drivers && drivers.length === 0 ? (
        <p class="notice">
          The library is empty: add a driver with <code>npx driverbox drivers add</code> or the Public API (<code>createCustomDriver</code>).
        </p>
      ) : null}
      {drivers && drivers.length > 0 ? (
        <ListTable class="drivers" caption={count(drivers.length, 'driver')} columns={['Driver', 'Code', 'Parameters', { label: 'Actions', wide: true }, 'Devices']}>
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
        </ListTable>
      ) : null}
    </>
  );
}
