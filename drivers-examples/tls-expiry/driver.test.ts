import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, getVariable, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('tls-expiry', () => {
  it('reports days to expiry and warns inside the warning window', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    // The simulator's certificate is trusted by runDriver and names 127.0.0.1: it verifies.
    assertVariables(result, { valid: true, 'cert-error': 'none', expiring: true, issuer: 'driverbox simulator' });
    const days = Number(getVariable(result, 'days-to-expiry').value);
    expect(days).toBeGreaterThanOrEqual(19);
    expect(days).toBeLessThanOrEqual(20);
    expect(getVariable(result, 'expiry').value).toMatch(/^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$/);
    expect(result.logs[0]?.message).toMatch(/^certificate expires in (19|20) days$/);
  });

  it('a self-signed certificate nobody trusts is reported as not verifying, with the reason', async () => {
    const result = await runDriver({ path: driver, simulate, parameters: { warnDays: 5 }, trustSimulators: false });
    assertSuccess(result);
    assertVariables(result, { valid: false, 'cert-error': 'DEPTH_ZERO_SELF_SIGNED_CERT', expiring: false });
  });
});
