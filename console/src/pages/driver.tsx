// One driver of the library (getCustomDriver): version, validity (with the inspection's errors),
// parameters with their defaults, actions, and its associations on every agent's devices with
// their parameter values; a link to edit and run it.
import { loadAssociations, parameterValue } from '../driver-data.js';
import { href } from '../router.js';
import type { CustomDriverDetails } from '../types.js';
import { useApi, useAsync } from '../use-api.js';
import { LoadNotices } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { Breadcrumb } from '../components/breadcrumb.js';
import { ListTable } from '../components/list-table.js';
import { ValidBadge } from './drivers.js';

/** Drivers › the driver, or Drivers › the driver › `current` on a page below it. */
export function DriverBreadcrumb({ name, driverId, current }: { name: string; driverId: number; current?: string }) {
  const drivers = { label: 'Drivers', href: href({ page: 'drivers' }) };
  return current ? <Breadcrumb trail={[drivers, { label: name, href: href({ page: 'driver', driverId }) }]} current={current} /> : <Breadcrumb trail={[drivers]} current={name} />;
}

export function DriverPage({ apiKey, driverId }: { apiKey: string; driverId: number }) {
  const driver = useApi<CustomDriverDetails>(`/custom-driver/${driverId}`, apiKey);
  const associations = useAsync((signal) => loadAssociations(apiKey, signal, driverId), [apiKey, driverId]);
  const d = driver.data;
  const name = d?.name ?? `Driver ${driverId}`;
  const first = associations.data?.[0];
  return (
    <>
      <DriverBreadcrumb name={name} driverId={driverId} />
      <PageHeading focusKey={`driver-${driverId}`}>{name}</PageHeading>
      <LoadNotices of={driver} what="the driver" />
      {d ? (
        <>
          <p class="meta">
            <ValidBadge valid={d.is_valid} /> <span class="mono">version {d.version}</span> <span>{d.type.toLowerCase().replace('_', ' ')}</span>
            <span>sampled every {d.minimal_sample_period} s at most</span>
            {d.requires_credentials ? <span>needs the device's credentials</span> : null}
          </p>
          {d.description ? <p>{d.description}</p> : null}
          <p>
            <a class="button-link primary" href={href({ page: 'editor', driverId, agentId: first?.agent.id ?? null, deviceId: first?.device_id ?? null, simulated: null })}>
              Edit and run
            </a>
          </p>
          {d.errors?.length ? (
            <div class="notice notice-error" role="alert">
              <p>The code is invalid and cannot be applied or run:</p>
              <ul>
                {d.errors.map((e, i) => (
                  <li key={i}>
                    <span class="mono">{e.type}</span>
                    {e.line ? ` (line ${e.line})` : ''}: {e.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <section class="card" aria-labelledby="driver-parameters">
            <h2 id="driver-parameters">Parameters ({d.parameters?.length ?? 0})</h2>
            {d.parameters?.length ? (
              <ListTable class="parameters" caption={`Parameters of ${d.name}`} hiddenCaption columns={['Name', 'Type', 'Default', { label: 'Description', wide: true }]}>
                {d.parameters.map((p) => (
                  <tr key={p.id}>
                    <th scope="row" class="mono">
                      {p.name}
                    </th>
                    <td>{p.value_type}</td>
                    <td class="mono">{parameterValue(p.default_value)}</td>
                    <td class="wide-only">{p.description ?? ''}</td>
                  </tr>
                ))}
              </ListTable>
            ) : (
              <p class="meta">This driver takes no parameter.</p>
            )}
          </section>
          <section class="card" aria-labelledby="driver-actions">
            <h2 id="driver-actions">Actions</h2>
            <ul class="plain">
              <li>
                <span class="mono">get_status</span>: collects the device's variables (every sample period)
              </li>
              {d.code_inspection.data_saving_functions.includes('backup') ? (
                <li>
                  <span class="mono">backup</span>: saves the device's configuration
                </li>
              ) : null}
              {d.actions.map((a) => (
                <li key={a.id}>
                  <span class="mono">custom_{a.id}</span> {a.label}
                  {a.documentation ? `: ${a.documentation}` : ''}
                </li>
              ))}
            </ul>
          </section>
        </>
      ) : null}
      <section class="card" aria-labelledby="driver-associations">
        <h2 id="driver-associations">Applied to</h2>
        <LoadNotices of={associations} what="the associations" />
        {associations.data && associations.data.length === 0 ? <p class="meta">No device: the driver is in the library only.</p> : null}
        {associations.data && associations.data.length > 0 ? (
          <ListTable class="associations" caption={`Devices ${name} is applied to`} hiddenCaption columns={['Device', { label: 'Agent', wide: true }, 'Every', 'Parameters', 'Run']}>
            {associations.data.map((a) => (
              <tr key={a.id}>
                <th scope="row">
                  <a href={href({ page: 'device', agentId: a.agent.id, deviceId: a.device_id, variableId: null, window: '24h' })}>{a.deviceName}</a>
                  {a.status === 'DISABLED' ? <span class="path">disabled</span> : null}
                </th>
                <td class="wide-only">{a.agent.display_name}</td>
                <td class="mono">{a.sample_period} s</td>
                <td>
                  {a.parameters?.length
                    ? a.parameters.map((p) => (
                        <span key={p.custom_driver_parameter_id} class="path">
                          <span class="mono">{p.name}</span> = <span class="mono">{parameterValue(p.value)}</span>
                        </span>
                      ))
                    : '—'}
                </td>
                <td>
                  <a href={href({ page: 'editor', driverId, agentId: a.agent.id, deviceId: a.device_id, simulated: null })} aria-label={`Edit and run on ${a.deviceName}`}>
                    Edit and run
                  </a>
                </td>
              </tr>
            ))}
          </ListTable>
        ) : null}
      </section>
    </>
  );
}
