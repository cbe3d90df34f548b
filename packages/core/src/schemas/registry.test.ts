import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as schemas from './index';

describe('the schema registry', () => {
  it('gives every exported schema with an id a distinct id that is not an input alias', () => {
    const ids = new Map<string, { name: string; schema: z.ZodType }>();
    for (const [name, value] of Object.entries(schemas)) {
      if (!(value instanceof z.ZodType)) continue;
      const id = z.globalRegistry.get(value)?.id;
      if (id === undefined) continue;
      const seen = ids.get(id);
      // An alias (`CreateContentTypeBody = ContentType`) is the same schema under another name.
      expect(
        seen === undefined || seen.schema === value,
        `${name} and ${seen?.name} share the id ${id}`,
      ).toBe(true);
      ids.set(id, { name, schema: value });
      // fastify-type-provider-zod names input variants `<id>Input`.
      expect(id.endsWith('Input'), id).toBe(false);
    }
    expect(ids.size).toBeGreaterThan(100);
  });

  it('names the resources of docs/api-spec.md §2 as components', () => {
    for (const id of [
      'Site',
      'ContentType',
      'ContentTypeSummary',
      'ContentRecord',
      'ContentList',
      'Template',
      'BuildResult',
      'AuditStatus',
      'ImportJsonResponse',
      'ImportEdgesResponse',
      'Error',
      'Environment',
      'Release',
      'Include',
      'Deployment',
      'ApiKey',
      'MediaAsset',
      'AccessEntry',
      'Member',
      'SiteSnapshot',
    ]) {
      const exported = (schemas as Record<string, unknown>)[id === 'Error' ? 'ErrorSchema' : id];
      expect(exported instanceof z.ZodType, id).toBe(true);
      expect(z.globalRegistry.get(exported as z.ZodType)?.id).toBe(id);
    }
  });

  it('describes the resources whose fields the spec leaves open, so the OpenAPI document does', () => {
    for (const id of [
      'Script',
      'GraphQuery',
      'Route',
      'View',
      'BlockType',
      'Workflow',
      'Locale',
      'Transform',
      'Widget',
      'PageKit',
    ]) {
      const exported = (schemas as Record<string, unknown>)[id] as z.ZodType;
      expect(z.globalRegistry.get(exported)?.description, id).toMatch(/\w{20,}|\w+ \w+ \w+/);
    }
  });

  it('converts every registered schema to JSON Schema for input and output', () => {
    for (const io of ['input', 'output'] as const) {
      const { schemas: converted } = z.toJSONSchema(z.globalRegistry, {
        io,
        unrepresentable: 'any',
        target: 'draft-2020-12',
      });
      expect(Object.keys(converted)).toContain('SiteSnapshot');
    }
  });
});
