import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from './config';

describe('the README documents the configuration', () => {
  it('names every variable the server reads in its Configuration table', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8');
    const start = readme.indexOf('## Configuration');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(Object.keys(ConfigSchema.shape).length).toBeGreaterThan(30);
    const missing = Object.keys(ConfigSchema.shape).filter((name) => !section.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
