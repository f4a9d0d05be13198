// Every operation of the Domotz Public API reference 1.14.0, called through MonitoringClient on a real server, its
// answer validated against the reference's schema (test/helpers/reference-schema.ts).
import { describe, expect, it } from 'vitest';
import { expectReferenceBody, referenceErrors, referenceOperations } from './helpers/reference-schema.js';

describe('the reference schemas (the harness can fail)', () => {
  it('hold the 123 operations of reference 1.14.0', () => {
    expect(referenceOperations).toHaveLength(123);
    expect(new Set(referenceOperations.map((o) => o.operationId)).size).toBe(123);
  });

  it('refuse null where the reference types a field plainly, a value out of an enum, a zone-less date-time', () => {
    expect(referenceErrors('getDevice', { id: 1, display_name: 'nas', protocol: 'IP', model: 'DS920' })).toEqual([]);
    const errors = referenceErrors('getDevice', {
      id: 1, display_name: 'nas', protocol: 'IP', model: null, hw_address: null, status: 'UP', first_seen_on: '2026-01-01T00:00:00',
    });
    expect(errors.join('\n')).toMatch(/\/model must be string \(got null\)/);
    expect(errors.join('\n')).toMatch(/\/hw_address must be string/);
    expect(errors.join('\n')).toMatch(/\/status must be equal to one of the allowed values/);
    expect(errors.join('\n')).toMatch(/\/first_seen_on must match format "date-time"/);
  });

  it('list every missing required property with its path', () => {
    expect(() => expectReferenceBody('listAgents', [{ id: 'x' }])).toThrow(/\/0 must have required property 'display_name'[\s\S]*\/0\/id must be integer/);
    expect(() => expectReferenceBody('getCustomDriver', { id: 1 })).toThrow(/required property 'code_inspection'/);
  });

  it('check the success status and that a 204 has no body', () => {
    expect(referenceErrors('deleteAgent', undefined, 204)).toEqual([]);
    expect(referenceErrors('deleteAgent', { a: 1 }, 204)).toHaveLength(1);
    expect(referenceErrors('createCustomDriverAssociation', { id: 1 }, 200)[0]).toMatch(/answers 201/);
  });
});
