import { describe, expect, it } from 'vitest';
import { CreateBlockTypeBody } from './block-types';
import {
  EmbeddingsMaterializeFailure,
  EmbeddingsMaterializeQuery,
  EngineProceduresFailure,
} from './diagnostics';
import { CreateLocaleBody, UpdateTranslationsBody } from './locales';
import { MediaAsset, MediaFileParams, MediaListQuery, StockQuery, StockResponse } from './media';
import { CreatePageKitBody } from './page-kits';
import { CreateSavedQueryBody, GraphQuery, RunQueryBody } from './queries';
import { CreateRouteBody } from './routes';
import { CreateScriptBody } from './scripts';
import { CreateTransformBody, TransformRules } from './transforms';
import { CreateViewBody, Seo } from './views';
import { CreateWidgetBody } from './widgets';
import { CreateWorkflowBody, WorkflowTransitionBody } from './workflows';

describe('saved queries', () => {
  const query = {
    type: 'movie',
    where: 'released >= $since and genre == horror',
    sort: '-released,title',
    follow: [{ edge: 'ACTED_IN', direction: 'in', type: 'person', where: 'name != null', sort: 'name' }],
    select: ['name'],
    limit: 20,
  };
  const params = { since: { type: 'number', required: true } };

  it('accepts a query with every part of the language', () => {
    expect(GraphQuery.safeParse(query).success).toBe(true);
    expect(CreateSavedQueryBody.safeParse({ name: 'cast', query, params }).success).toBe(true);
  });

  it('needs uppercase edge labels, a known direction and a depth of 1 to 3 in follow steps', () => {
    expect(GraphQuery.safeParse({ ...query, follow: [{ edge: 'acted_in' }] }).success).toBe(false);
    expect(GraphQuery.safeParse({ ...query, follow: [{ edge: 'ACTED_IN', direction: 'up' }] }).success).toBe(
      false,
    );
    expect(GraphQuery.safeParse({ ...query, follow: [{ edge: 'ACTED_IN', depth: 4 }] }).success).toBe(false);
    const step = GraphQuery.parse({ type: 'movie', follow: [{ edge: '*' }] }).follow?.[0];
    expect(step).toMatchObject({ direction: 'out', depth: 1 });
  });

  it('bounds limit and refuses unknown keys', () => {
    expect(GraphQuery.safeParse({ ...query, limit: 0 }).success).toBe(false);
    expect(GraphQuery.safeParse({ ...query, limit: 1001 }).success).toBe(false);
    expect(GraphQuery.safeParse({ ...query, match: { label: 'Movie' } }).success).toBe(false);
    expect(RunQueryBody.safeParse({ params: { since: 1979 }, limit: 10 }).success).toBe(true);
    expect(RunQueryBody.safeParse({ params: { since: { $gt: 1 } } }).success).toBe(false);
  });

  it('parses where and sort with the list language, and needs every $param declared', () => {
    const issues = (body: unknown) =>
      (CreateSavedQueryBody.safeParse(body).error?.issues ?? []).map((issue) => issue.message).join('; ');
    expect(issues({ name: 'cast', query })).toContain('$since is not a declared parameter');
    expect(issues({ name: 'cast', query: { ...query, where: 'released = 1' }, params })).toContain(
      'is not a condition',
    );
    expect(issues({ name: 'cast', query: { ...query, sort: 'a b' }, params })).toContain('is not a sort key');
    expect(
      issues({ name: 'cast', query: { type: 'movie', follow: [{ edge: 'X', where: 'a == 1' }] } }),
    ).toContain('needs the `type`');
    expect(issues({ name: 'cast', query, params: { since: { type: 'number', default: 'soon' } } })).toContain(
      'default of since must be a number',
    );
  });
});

describe('transforms', () => {
  it('accepts each kind with what it needs', () => {
    const base = { name: 'Upper titles', event: 'beforeRender', type: 'movie', enabled: true, order: 1 };
    expect(
      CreateTransformBody.safeParse({
        ...base,
        kind: 'set-field',
        field: 'title',
        value: '{{ item.fields.title | upcase }}',
      }).success,
    ).toBe(true);
    expect(
      CreateTransformBody.safeParse({ ...base, kind: 'template', field: 'summary', template: 'summary' })
        .success,
    ).toBe(true);
    expect(CreateTransformBody.safeParse({ ...base, kind: 'script', script: 'enrich' }).success).toBe(true);
    expect(CreateTransformBody.safeParse({ ...base, kind: 'set-field', field: 'title' }).success).toBe(false);
    expect(CreateTransformBody.safeParse({ ...base, kind: 'template', field: 'summary' }).success).toBe(
      false,
    );
    expect(CreateTransformBody.safeParse({ ...base, kind: 'script' }).success).toBe(false);
    expect(CreateTransformBody.safeParse({ ...base, kind: 'webhook', script: 'x' }).success).toBe(false);
    expect(
      CreateTransformBody.safeParse({ ...base, event: 'whenever', kind: 'script', script: 'x' }).success,
    ).toBe(false);
  });

  it('defaults enabled and order, and applies to every type without type', () => {
    const parsed = TransformRules.parse({
      id: 'x',
      name: 'X',
      event: 'beforeSave',
      kind: 'script',
      script: 's',
    });
    expect(parsed).toMatchObject({ enabled: true, order: 0 });
    expect(parsed.type).toBeUndefined();
  });
});

describe('routes and views', () => {
  it('needs what each route kind needs', () => {
    expect(CreateRouteBody.safeParse({ slug: 'about', path: '/about/', template: 'page' }).success).toBe(
      true,
    );
    expect(CreateRouteBody.safeParse({ slug: 'about', path: '/about/' }).success).toBe(false);
    expect(
      CreateRouteBody.safeParse({
        slug: 'films',
        path: '/films/',
        kind: 'listing',
        template: 'list',
        paginate: { type: 'movie', size: 20 },
      }).success,
    ).toBe(true);
    expect(
      CreateRouteBody.safeParse({ slug: 'films', path: '/films/', kind: 'listing', template: 'list' })
        .success,
    ).toBe(false);
    expect(
      CreateRouteBody.safeParse({
        slug: 'old',
        path: '/old/',
        kind: 'redirect',
        redirectTo: '/new/',
        status: 301,
      }).success,
    ).toBe(true);
    expect(
      CreateRouteBody.safeParse({
        slug: 'old',
        path: '/old/',
        kind: 'redirect',
        redirectTo: '/new/',
        status: 307,
      }).success,
    ).toBe(false);
    expect(CreateRouteBody.safeParse({ slug: 'x', path: 'about', template: 'page' }).success).toBe(false);
  });

  it('takes a view with seo', () => {
    const view = {
      name: 'latest',
      path: '/latest/',
      template: 'list',
      paginate: { type: 'movie', size: 10, sort: '-released', where: "genre == 'horror'" },
      seo: {
        title: 'Latest',
        description: 'New films',
        canonicalUrl: 'https://acme.example/latest/',
        noindex: false,
      },
    };
    expect(CreateViewBody.safeParse(view).success).toBe(true);
    expect(CreateViewBody.safeParse({ ...view, paginate: undefined }).success).toBe(false);
    expect(Seo.safeParse({ canonicalUrl: 'not a url' }).success).toBe(false);
  });
});

describe('scripts, block types, workflows, locales, widgets, page kits', () => {
  it('takes a script and bounds its timeout', () => {
    const script = { name: 'enrich', source: 'return item;', event: 'beforeSave', type: 'movie' };
    expect(CreateScriptBody.parse(script)).toMatchObject({
      language: 'javascript',
      enabled: true,
      timeoutMs: 1000,
    });
    expect(CreateScriptBody.safeParse({ ...script, timeoutMs: 60_000 }).success).toBe(false);
    expect(CreateScriptBody.safeParse({ ...script, language: 'python' }).success).toBe(false);
    expect(CreateScriptBody.safeParse({ ...script, source: '' }).success).toBe(false);
  });

  it('takes a block type with field definitions', () => {
    const blockType = {
      name: 'quote',
      label: 'Quote',
      fields: [{ name: 'text', type: 'text', required: true }],
    };
    expect(CreateBlockTypeBody.safeParse(blockType).success).toBe(true);
    expect(
      CreateBlockTypeBody.safeParse({ ...blockType, fields: [{ name: 'kind', type: 'enum' }] }).success,
    ).toBe(false);
  });

  it('checks that a workflow is closed over its states', () => {
    const workflow = {
      name: 'editorial',
      states: [{ name: 'draft' }, { name: 'review' }, { name: 'published', published: true }],
      initial: 'draft',
      transitions: [
        { from: 'draft', to: 'review' },
        { from: 'review', to: 'published', roles: ['publisher', 'admin'] },
      ],
    };
    expect(CreateWorkflowBody.safeParse(workflow).success).toBe(true);
    expect(CreateWorkflowBody.safeParse({ ...workflow, initial: 'new' }).success).toBe(false);
    expect(
      CreateWorkflowBody.safeParse({ ...workflow, transitions: [{ from: 'draft', to: 'gone' }] }).success,
    ).toBe(false);
    expect(
      CreateWorkflowBody.safeParse({ ...workflow, states: [...workflow.states, { name: 'draft' }] }).success,
    ).toBe(false);
    expect(WorkflowTransitionBody.safeParse({ to: 'review', comment: 'ready' }).success).toBe(true);
    expect(WorkflowTransitionBody.safeParse({ to: 'Review' }).success).toBe(false);
  });

  it('takes BCP 47 locales and translation maps', () => {
    expect(CreateLocaleBody.parse({ code: 'pt-BR', name: 'Português' })).toMatchObject({
      direction: 'ltr',
      default: false,
    });
    expect(CreateLocaleBody.safeParse({ code: 'english', name: 'English' }).success).toBe(false);
    expect(CreateLocaleBody.safeParse({ code: 'en', name: 'English', fallback: 'en' }).success).toBe(false);
    expect(
      UpdateTranslationsBody.safeParse({ entries: { 'nav.home': 'Início', 'nav.old': null } }).success,
    ).toBe(true);
    expect(UpdateTranslationsBody.safeParse({ entries: { 'nav home': 'x' } }).success).toBe(false);
  });

  it('takes a widget and a page kit', () => {
    expect(
      CreateWidgetBody.parse({ name: 'newsletter', area: 'sidebar', template: '<form></form>' }),
    ).toMatchObject({
      settings: {},
      order: 0,
      enabled: true,
    });
    expect(CreateWidgetBody.safeParse({ name: 'n', area: 'Side Bar', template: '' }).success).toBe(false);
    expect(
      CreatePageKitBody.safeParse({ name: 'Hero', blocks: [{ type: 'hero', data: { title: 'Hi' } }] })
        .success,
    ).toBe(true);
    expect(CreatePageKitBody.safeParse({ name: 'Empty' }).success).toBe(false);
  });
});

describe('media and diagnostics', () => {
  const sha = 'a'.repeat(64);

  it('accepts the spec media asset', () => {
    const asset = {
      ok: true,
      id: 'asset:01J0',
      url: `/media/assets/${sha}.png`,
      sha256: sha,
      filename: 'poster.png',
      mimetype: 'image/png',
      bytes: 1024,
      width: 640,
      height: 480,
      uploadedBy: 'u1',
      uploadedAt: '2026-06-14T10:00:00Z',
    };
    expect(MediaAsset.parse(asset)).toEqual(asset);
    expect(MediaAsset.safeParse({ ...asset, id: '01J0' }).success).toBe(false);
    expect(MediaAsset.safeParse({ ...asset, url: '/media/poster.png' }).success).toBe(false);
  });

  it('checks the media file path', () => {
    expect(MediaFileParams.safeParse({ sha, ext: 'png' }).success).toBe(true);
    expect(MediaFileParams.safeParse({ sha: '../etc/passwd', ext: 'png' }).success).toBe(false);
    expect(MediaFileParams.safeParse({ sha, ext: 'png/x' }).success).toBe(false);
  });

  it('reads the media and stock queries', () => {
    expect(MediaListQuery.parse({ q: 'poster', countOnly: '1' })).toEqual({ q: 'poster', countOnly: true });
    expect(StockQuery.safeParse({ provider: 'pexels', q: 'forest', orientation: 'landscape' }).success).toBe(
      true,
    );
    expect(StockQuery.safeParse({ provider: 'flickr', q: 'forest' }).success).toBe(false);
    expect(
      StockResponse.safeParse({
        items: [
          {
            id: '1',
            url: 'https://x/1.jpg',
            thumb: 'https://x/1t.jpg',
            photographer: 'A',
            source: 'pexels',
            width: 10,
            height: 10,
          },
        ],
      }).success,
    ).toBe(true);
  });

  it('describes the 502 bodies with a hint', () => {
    expect(EmbeddingsMaterializeQuery.safeParse({}).success).toBe(false);
    expect(
      EmbeddingsMaterializeFailure.safeParse({ error: 'e', hint: 'h', type: 'movie', nodeLabel: 'Movie' })
        .success,
    ).toBe(true);
    expect(
      EmbeddingsMaterializeFailure.safeParse({ error: 'e', type: 'movie', nodeLabel: 'Movie' }).success,
    ).toBe(false);
    expect(
      EngineProceduresFailure.safeParse({ ok: false, error: 'e', hint: 'h', attempts: [] }).success,
    ).toBe(true);
  });
});
