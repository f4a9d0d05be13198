// The first thing to break when the sandbox breaks: a driver run end to end through the host, with its variables.
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from './helpers/host.js';

describe('a driver run', () => {
  const host = useHost();
  it('reports the variables a driver passes to D.success', async () => {
    const result = await runSource(host, `function get_status(){ D.success([D.createVariable('t', 'Temp', 21.5, 'C', D.valueType.NUMBER)]); }`);
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([{ uid: 't', label: 'Temp', value: '21.5', unit: 'C', valueType: 'NUMBER' }]);
  });
});
