import { describe, expect, it } from 'vitest';
import { errorRegistry } from './registry';
import { isTrellisError, TrellisError } from './trellis-error';

describe('TrellisError', () => {
  it('carries the status of its code and renders {error, code, hint}', () => {
    const error = TrellisError.of(
      'engine_error',
      { detail: 'connection refused' },
      { hint: 'Is the engine running?' },
    );
    expect(error.status).toBe(502);
    expect(error.toBody()).toEqual({
      error: 'The graph engine call failed: connection refused',
      code: 'engine_error',
      hint: 'Is the engine running?',
    });
  });

  it('renders extra fields beside error and code, which they cannot override', () => {
    const error = TrellisError.of(
      'too_many_records',
      { count: 20000, max: 10000, suggestedBatchSize: 500 },
      { extra: { suggestedBatchSize: 500, suggestedCallCount: 2, code: 'spoofed' } },
    );
    expect(error.status).toBe(413);
    expect(error.toBody()).toMatchObject({
      code: 'too_many_records',
      suggestedBatchSize: 500,
      suggestedCallCount: 2,
    });
  });

  it('is recognised across package copies by shape', () => {
    const lookalike = { name: 'TrellisError', status: 404, code: 'not_found', message: 'x' };
    expect(isTrellisError(lookalike)).toBe(true);
    expect(isTrellisError(new Error('x'))).toBe(false);
  });

  it('uses the statuses of docs/api-spec.md §7', () => {
    const expected: Record<string, number> = {
      partial_site_creation: 500,
      template_write_not_visible: 502,
      too_many_records: 413,
      rate_limited: 429,
      overloaded: 503,
      query_timeout: 504,
      unauthenticated: 401,
      forbidden: 403,
      review_gate: 409,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect(errorRegistry[code as keyof typeof errorRegistry].status).toBe(status);
    }
  });
});
