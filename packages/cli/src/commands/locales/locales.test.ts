import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();
const en = { code: 'en', name: 'English', default: true, direction: 'ltr', enabled: true };
const fr = { code: 'fr', name: 'Français', default: false, direction: 'ltr', enabled: true };

describe('cms locales', () => {
  it('lists the locales with the default marked', async () => {
    await t.serve({ 'GET /api/locales': () => ({ body: [en, fr] }) });
    const result = await t.cli(['locales', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^CODE\s+NAME\s+DEFAULT\s+FALLBACK\s+ENABLED\n/);
    expect(result.stdout).toMatch(/en\s+English\s+yes\s+true\n/);
  });

  it('adds a locale with a fallback, sets the default and removes one', async () => {
    const server = await t.serve({
      'POST /api/locales': ({ body }) => ({
        status: 201,
        body: { ...fr, ...(body as object), code: 'fr-CA' },
      }),
      'PATCH /api/locales/fr': () => ({ body: { ...fr, default: true } }),
      'DELETE /api/locales/fr-CA': () => ({ status: 204 }),
    });
    const added = await t.cli(['locales', 'add', 'fr-CA', 'Français (Canada)', '--fallback', 'fr']);
    expect(added.code, added.stderr).toBe(0);
    expect(server.hits('POST /api/locales')[0]?.body).toEqual({
      code: 'fr-CA',
      name: 'Français (Canada)',
      fallback: 'fr',
    });
    const set = await t.cli(['locales', 'set-default', 'fr']);
    expect(set.stdout).toBe('fr is the default locale.\n');
    expect(server.hits('PATCH /api/locales/fr')[0]?.body).toEqual({ default: true });
    const removed = await t.cli(['locales', 'rm', 'fr-CA']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Deleted fr-CA and its translations.\n');
  });

  it('sets UI strings from key=text pairs and an item’s fields, and shows them', async () => {
    const stored = {
      locale: 'fr',
      entries: { 'nav.home': 'Accueil' },
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    };
    const server = await t.serve({
      'PUT /api/locales/fr/translations': () => ({ body: stored }),
      'GET /api/locales/fr/translations': () => ({ body: stored }),
    });
    const set = await t.cli([
      'locales',
      'translations',
      'set',
      'fr',
      'nav.home=Accueil',
      'nav.old=',
      '--item',
      'post:hello',
      '--fields',
      '{"title":"Bonjour"}',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(server.hits('PUT /api/locales/fr/translations')[0]?.body).toEqual({
      entries: { 'nav.home': 'Accueil', 'nav.old': null },
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    });
    const got = await t.cli(['locales', 'translations', 'get', 'fr']);
    expect(got.stdout).toContain('  nav.home = Accueil\n');
    expect(got.stdout).toContain('  post:hello {"title":"Bonjour"}\n');
    const bad = await t.cli(['locales', 'translations', 'set', 'fr', 'no-equals']);
    expect(bad.code).toBe(2);
  });
});
