// Real monitoring done by driverbox itself: TCP sensor probes and the prober that runs them.
export { probeTcp, probeDevicePort, dialTarget, DEFAULT_PROBE_TIMEOUT_MS, type TcpProbeResult, type DeviceAddress, type ProbeReason } from './tcp-probe.js';
export { createMonitorProber, recordProbes, DEFAULT_PROBE_INTERVAL_MS, type MonitorProber, type MonitorProberOptions, type SensorProbe } from './prober.js';
export { summariseRoundTrips } from './round-trips.js';
