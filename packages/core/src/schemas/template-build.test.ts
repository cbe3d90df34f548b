import { describe, expect, it } from 'vitest';
import {
  BuildAccepted,
  BuildBody,
  BuildHistoryQuery,
  BuildQuery,
  BuildResult,
  BuildStatus,
  DeployResult,
} from './build';
import { CreateTemplateBody, Template, TemplateParams, templateSource, UpdateTemplateBody } from './template';

describe('templates', () => {
  it('accepts the spec Template', () => {
    const template = {
      name: 'movie',
      content: '<h1>{{ item.fields.title }}</h1>',
      version: 3,
      latestVersion: 3,
      boundType: 'movie',
      enabled: true,
      updatedAt: '2026-06-14T10:00:00Z',
    };
    expect(Template.parse(template)).toEqual(template);
    expect(Template.safeParse({ name: 'movie', content: '' }).success).toBe(false);
  });

  it('takes content or its alias html on create', () => {
    expect(templateSource(CreateTemplateBody.parse({ name: 'page', content: 'a' }))).toBe('a');
    expect(templateSource(CreateTemplateBody.parse({ name: 'page', html: 'b', boundType: '' }))).toBe('b');
    expect(CreateTemplateBody.safeParse({ name: 'page', content: 'a', html: 'a' }).success).toBe(true);
    expect(CreateTemplateBody.safeParse({ name: 'page', content: 'a', html: 'b' }).success).toBe(false);
    expect(CreateTemplateBody.safeParse({ name: 'page' }).success).toBe(false);
    expect(CreateTemplateBody.safeParse({ content: 'a' }).success).toBe(false);
  });

  it('binds to a type name or to every type with the empty string', () => {
    expect(CreateTemplateBody.safeParse({ name: 'p', content: 'a', boundType: 'movie' }).success).toBe(true);
    expect(CreateTemplateBody.safeParse({ name: 'p', content: 'a', boundType: 'not a type' }).success).toBe(
      false,
    );
  });

  it('takes an all-optional PUT body', () => {
    expect(UpdateTemplateBody.parse({})).toEqual({});
    expect(UpdateTemplateBody.safeParse({ enabled: false }).success).toBe(true);
  });

  it('rejects template names that are not one path segment', () => {
    for (const name of ['a/b', '..', '', 'a b', '.hidden..x']) {
      expect(TemplateParams.safeParse({ name }).success, name).toBe(false);
    }
    expect(TemplateParams.safeParse({ name: 'movie.list' }).success).toBe(true);
  });
});

describe('build', () => {
  const deploy = {
    ok: true,
    bucket: 'local',
    keyPrefix: 'sites/acme/prod',
    publicUrl: 'http://127.0.0.1:4000/sites/acme/',
    filesUploaded: 10,
    filesDeleted: 1,
    bytes: 20480,
    durationMs: 35,
    serveCheck: { ok: true, status: 200, durationMs: 4, url: 'http://127.0.0.1:4000/sites/acme/', error: '' },
  };

  it('accepts the spec BuildResult with deploy and serveCheck', () => {
    const result = {
      ok: true,
      buildId: 'b1',
      mode: 'incremental',
      artifacts: 10,
      durationMs: 120,
      transformErrors: [{ contentId: 'movie:alien', transform: 'upper', error: 'boom' }],
      deploy,
    };
    expect(BuildResult.parse(result)).toEqual(result);
    expect(BuildResult.safeParse({ ...result, deploy: null, mode: 'validate' }).success).toBe(true);
    expect(BuildResult.safeParse({ ...result, mode: 'partial' }).success).toBe(false);
    expect(DeployResult.safeParse({ ...deploy, serveCheck: null }).success).toBe(true);
  });

  it('reads the query flags and the body', () => {
    expect(BuildQuery.parse({ env: 'prod', async: '1', dryRun: '0' })).toEqual({
      env: 'prod',
      async: true,
      dryRun: false,
    });
    expect(BuildQuery.safeParse({ async: 'maybe' }).success).toBe(false);
    const body = { env: 'dev', mode: 'full', async: true, outputChannels: ['pages', 'search'] };
    expect(BuildBody.parse(body)).toEqual(body);
    expect(BuildBody.safeParse({ mode: 'manual' }).success).toBe(false);
    expect(BuildBody.optional().parse(undefined)).toBeUndefined();
  });

  it('describes the 202 answer and the status with running/ok/error', () => {
    const accepted = {
      ok: true,
      buildId: 'b2',
      envId: 'env:prod',
      status: 'running',
      statusUrl: '/api/build/status/b2',
    };
    expect(BuildAccepted.parse(accepted)).toEqual(accepted);
    expect(BuildAccepted.safeParse({ ...accepted, status: 'ok' }).success).toBe(false);
    expect(
      BuildStatus.safeParse({ ok: true, buildId: 'b2', envId: 'env:prod', status: 'running' }).success,
    ).toBe(true);
    expect(
      BuildStatus.safeParse({ ok: true, buildId: 'b2', envId: 'env:prod', status: 'done' }).success,
    ).toBe(false);
  });

  it('defaults the history limit to 50', () => {
    expect(BuildHistoryQuery.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(BuildHistoryQuery.safeParse({ limit: '0' }).success).toBe(false);
  });
});
