import { describe, expect, it } from 'vitest';
import {
  ImportEdgesBody,
  ImportEdgesResponse,
  ImportJsonBody,
  ImportJsonResponse,
  ImportTooLarge,
  RemoveEdgesBody,
  RemoveEdgesResponse,
} from './import';

describe('ImportJsonBody', () => {
  it('fills the spec defaults', () => {
    expect(ImportJsonBody.parse({ typeName: 'movie', records: [{ title: 'Alien' }] })).toEqual({
      typeName: 'movie',
      records: [{ title: 'Alien' }],
      batchSize: 100,
      skipExisting: false,
      dryRun: false,
    });
  });

  it('takes batchSize 1 to 500', () => {
    const body = { typeName: 'movie', records: [] };
    expect(ImportJsonBody.safeParse({ ...body, batchSize: 1 }).success).toBe(true);
    expect(ImportJsonBody.safeParse({ ...body, batchSize: 500 }).success).toBe(true);
    for (const batchSize of [0, 501, -1, 2.5, '100']) {
      expect(ImportJsonBody.safeParse({ ...body, batchSize }).success, String(batchSize)).toBe(false);
    }
  });

  it('needs typeName and records of objects', () => {
    expect(ImportJsonBody.safeParse({ records: [] }).success).toBe(false);
    expect(ImportJsonBody.safeParse({ typeName: 'movie' }).success).toBe(false);
    expect(ImportJsonBody.safeParse({ typeName: 'movie', records: ['Alien'] }).success).toBe(false);
    expect(ImportJsonBody.safeParse({ typeName: 'movie', records: [], dryRun: 'yes' }).success).toBe(false);
  });
});

describe('ImportEdgesBody', () => {
  const edge = {
    from: 'person:sigourney-weaver',
    edge: 'ACTED_IN',
    to: 'movie:alien',
    props: { role: 'Ripley' },
  };

  it('fills batchSize 500 and takes 1 to 2000', () => {
    expect(ImportEdgesBody.parse({ edges: [edge] })).toEqual({ edges: [edge], batchSize: 500 });
    expect(ImportEdgesBody.safeParse({ edges: [edge], batchSize: 2000 }).success).toBe(true);
    for (const batchSize of [0, 2001]) {
      expect(ImportEdgesBody.safeParse({ edges: [edge], batchSize }).success, String(batchSize)).toBe(false);
    }
  });

  it('needs an uppercase identifier as edge label', () => {
    for (const label of ['acted_in', 'Acted_In', 'ACTED IN', 'ACTED-IN', '_ACTED']) {
      expect(ImportEdgesBody.safeParse({ edges: [{ ...edge, edge: label }] }).success, label).toBe(false);
    }
  });

  it('needs item ids at both ends', () => {
    expect(ImportEdgesBody.safeParse({ edges: [{ ...edge, from: 'sigourney' }] }).success).toBe(false);
    const { props: _props, ...withoutProps } = edge;
    expect(ImportEdgesBody.safeParse({ edges: [withoutProps] }).success).toBe(true);
  });
});

describe('import responses', () => {
  it('accepts the spec ImportJsonResponse', () => {
    const response = {
      ok: true,
      totalRecords: 2,
      created: 1,
      failed: 1,
      batches: 1,
      tookMs: 12,
      recordsPerSec: 166.7,
      errors: [{ index: 1, id: 'movie:x', error: 'title is required' }],
      gatewayTimeoutWarning: { message: 'split it', suggestedBatchSize: 500, suggestedCallCount: 4 },
    };
    expect(ImportJsonResponse.parse(response)).toEqual(response);
    expect(ImportJsonResponse.safeParse({ ...response, gatewayTimeoutWarning: null }).success).toBe(true);
    const { gatewayTimeoutWarning: _warning, ...withoutWarning } = response;
    expect(ImportJsonResponse.safeParse(withoutWarning).success).toBe(false);
  });

  it('takes the updated and unchanged counters, and only a valid batchSize as the warning’s suggestion', () => {
    const response = {
      ok: true,
      totalRecords: 3,
      created: 1,
      updated: 1,
      unchanged: 1,
      skipped: 0,
      failed: 0,
      batches: 1,
      tookMs: 12,
      recordsPerSec: 250,
      errors: [],
      gatewayTimeoutWarning: null,
    };
    expect(ImportJsonResponse.parse(response)).toEqual(response);
    const warning = (suggestedBatchSize: number) => ({
      ...response,
      gatewayTimeoutWarning: { message: 'split it', suggestedBatchSize, suggestedCallCount: 4 },
    });
    expect(ImportJsonResponse.safeParse(warning(500)).success).toBe(true);
    expect(ImportJsonResponse.safeParse(warning(501)).success).toBe(false);
    expect(ImportJsonResponse.safeParse(warning(0)).success).toBe(false);
  });

  it('accepts the spec ImportEdgesResponse', () => {
    const response = {
      ok: true,
      totalEdges: 3,
      merged: 2,
      mismatch: 1,
      failed: 0,
      batches: 1,
      tookMs: 4,
      edgesPerSec: 750,
      errors: [],
    };
    expect(ImportEdgesResponse.parse(response)).toEqual(response);
  });

  it('describes the 413 body with its split advice', () => {
    const body = {
      error: 'too many',
      code: 'too_many_records',
      suggestedBatchSize: 500,
      suggestedCallCount: 4,
    };
    expect(ImportTooLarge.parse(body)).toEqual(body);
    expect(ImportTooLarge.safeParse({ error: 'too many', code: 'too_many_records' }).success).toBe(false);
    // Never more than the largest batchSize of any import endpoint (edges: 2000).
    expect(ImportTooLarge.safeParse({ ...body, suggestedBatchSize: 2000 }).success).toBe(true);
    expect(ImportTooLarge.safeParse({ ...body, suggestedBatchSize: 25_001 }).success).toBe(false);
  });

  it('describes edge removal', () => {
    const edge = { from: 'book:b', edge: 'WRITTEN_BY', to: 'author:a' };
    expect(RemoveEdgesBody.parse({ edges: [edge] })).toEqual({ edges: [edge], batchSize: 500 });
    expect(RemoveEdgesBody.safeParse({ edges: [{ ...edge, edge: 'written_by' }] }).success).toBe(false);
    const response = {
      ok: true,
      totalEdges: 2,
      removed: 1,
      missing: 1,
      failed: 0,
      batches: 1,
      tookMs: 1,
      errors: [],
    };
    expect(RemoveEdgesResponse.parse(response)).toEqual(response);
  });
});
