// The simulated device's identity as a validated fixture holds it: the credentials its protocols
// check, its host name, serial and MAC address. Apart from fixture-types.ts because each protocol's
// section parser (ssh/, telnet/, winrm/) reads it, and fixture-types.ts imports those sections' types.

export interface FixtureDevice {
  username: string | null;
  password: string | null;
  host: string | null;
  serial: string | null;
  macAddress: string | null;
}
