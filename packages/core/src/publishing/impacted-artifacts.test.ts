import { describe, expect, it } from 'vitest';
import type { DependencyReader, ManifestArtifact } from './artifact-deps';
import { chooseBuildMode, impactedArtifacts } from './impacted-artifacts';

function artifact(key: string, file: string, deps: Partial<ManifestArtifact['deps']>): ManifestArtifact {
  return { key, file, hash: 'h', bytes: 1, deps: { items: {}, templates: {}, queries: {}, ...deps } };
}

const previous = [
  artifact('item:post:a', 'blog/a/index.html', { items: { 'post:a': '1' }, templates: { post: 't1' } }),
  artifact('item:post:b', 'blog/b/index.html', { items: { 'post:b': '1' }, templates: { post: 't1' } }),
  artifact('route:/#1', 'index.html', { templates: { home: 't1' }, queries: { q1: 'r1' } }),
  artifact('item:post:gone', 'blog/gone/index.html', { items: { 'post:gone': '1' } }),
];

function reader(overrides: {
  items?: Record<string, string>;
  templates?: Record<string, string>;
  queries?: Record<string, string>;
}): DependencyReader {
  const items = { 'post:a': '1', 'post:b': '1', ...overrides.items };
  const templates = { post: 't1', home: 't1', ...overrides.templates };
  const queries = { q1: 'r1', ...overrides.queries };
  return {
    itemHash: (id) => items[id as keyof typeof items] ?? '',
    templateHash: (name) => templates[name as keyof typeof templates] ?? '',
    queryHash: (key) => queries[key as keyof typeof queries] ?? '',
  };
}

const planned = [
  { key: 'item:post:a', file: 'blog/a/index.html' },
  { key: 'item:post:b', file: 'blog/b/index.html' },
  { key: 'route:/#1', file: 'index.html' },
];

describe('impactedArtifacts', () => {
  it('renders only artifacts with a changed item, and removes files no longer planned', () => {
    const plan = impactedArtifacts({ previous, planned, reader: reader({ items: { 'post:a': '2' } }) });
    expect(plan.render).toEqual(['item:post:a']);
    expect(plan.carry.map((a) => a.key)).toEqual(['item:post:b', 'route:/#1']);
    expect(plan.removed).toEqual(['blog/gone/index.html']);
  });

  it('follows template and query changes', () => {
    expect(
      impactedArtifacts({ previous, planned, reader: reader({ templates: { post: 't2' } }) }).render,
    ).toEqual(['item:post:a', 'item:post:b']);
    expect(
      impactedArtifacts({ previous, planned, reader: reader({ queries: { q1: 'r2' } }) }).render,
    ).toEqual(['route:/#1']);
  });

  it('renders new artifacts and artifacts that moved to another file', () => {
    const moved = [
      { key: 'item:post:a', file: 'posts/a/index.html' },
      { key: 'item:post:new', file: 'blog/new/index.html' },
    ];
    const plan = impactedArtifacts({ previous, planned: moved, reader: reader({}) });
    expect(plan.render).toEqual(['item:post:a', 'item:post:new']);
    expect(plan.removed).toContain('blog/a/index.html');
  });
});

describe('chooseBuildMode', () => {
  it('builds in full without a compatible previous build or above the threshold', () => {
    expect(chooseBuildMode({ hasCompatiblePrevious: false, toRender: 1, planned: 100 })).toBe('full');
    expect(chooseBuildMode({ hasCompatiblePrevious: true, toRender: 31, planned: 100 })).toBe('full');
    expect(chooseBuildMode({ hasCompatiblePrevious: true, toRender: 30, planned: 100 })).toBe('incremental');
    expect(chooseBuildMode({ hasCompatiblePrevious: true, toRender: 5, planned: 10, threshold: 0.6 })).toBe(
      'incremental',
    );
  });
});
