import { describe, expect, it } from 'vitest';
import { AccessEntry, GrantBody, Member, UpdateMemberRoleBody } from './access';
import { ApiKey, ApiKeyCreated, CreateApiKeyBody } from './api-key';
import { Role } from './common';
import { CreateSiteBody, Site, SiteParams, UpdateSiteBody } from './site';

const site = {
  id: 'site:acme',
  name: 'Acme',
  slug: 'acme',
  graphName: '3f2b9c1e-8d4a-4e7b-9a51-0c6d2f8e7a10',
  publicUrl: null,
  description: 'The Acme site',
  mantra: 'Make things',
  theme: { primary: '#112233', accent: '#ff8800', font: null },
  searchEmission: 'bm25+vector',
  createdAt: '2026-06-14T10:00:00.000Z',
};

describe('Site', () => {
  it('accepts the docs/api-spec.md §2 shape', () => {
    expect(Site.parse(site)).toEqual(site);
  });

  it('needs id, name, slug, graphName and createdAt', () => {
    for (const key of ['id', 'name', 'slug', 'graphName', 'createdAt']) {
      const { [key]: _omitted, ...rest } = site as Record<string, unknown>;
      expect(Site.safeParse(rest).success, key).toBe(false);
    }
  });

  it('rejects ids that are not site:<slug>', () => {
    for (const id of ['acme', 'site:', 'site:Acme', 'release:acme', 'site:acme/x']) {
      expect(Site.safeParse({ ...site, id }).success, id).toBe(false);
    }
  });

  it('takes only none, bm25 and bm25+vector as searchEmission', () => {
    expect(Site.safeParse({ ...site, searchEmission: 'none' }).success).toBe(true);
    expect(Site.safeParse({ ...site, searchEmission: 'vector' }).success).toBe(false);
  });
});

describe('site bodies', () => {
  it('needs only a name to create a site', () => {
    expect(CreateSiteBody.parse({ name: 'Acme' })).toEqual({ name: 'Acme' });
    expect(CreateSiteBody.safeParse({}).success).toBe(false);
    expect(CreateSiteBody.safeParse({ name: '   ' }).success).toBe(false);
  });

  it('takes the spec body with a starter kit', () => {
    const body = {
      name: 'Acme',
      slug: 'acme',
      publicUrl: 'https://acme.example',
      description: 'd',
      mantra: 'm',
      theme: { primary: '#000', accent: '#fff' },
      starterKit: 'designer',
    };
    expect(CreateSiteBody.parse(body)).toEqual(body);
    expect(CreateSiteBody.safeParse({ ...body, starterKit: 'gardener' }).success).toBe(false);
    expect(CreateSiteBody.safeParse({ ...body, slug: 'Not A Slug' }).success).toBe(false);
    expect(CreateSiteBody.safeParse({ ...body, publicUrl: 'ftp://acme.example' }).success).toBe(false);
  });

  it('drops immutable fields from a partial update', () => {
    expect(UpdateSiteBody.parse({ mantra: 'new', graphName: 'other', id: 'site:x' })).toEqual({
      mantra: 'new',
    });
  });

  it('checks the path id', () => {
    expect(SiteParams.safeParse({ id: 'site:acme' }).success).toBe(true);
    expect(SiteParams.safeParse({ id: 'acme' }).success).toBe(false);
  });
});

describe('roles, access and members', () => {
  it('has the five roles of docs/api-spec.md §5', () => {
    expect(Role.options).toEqual(['owner', 'admin', 'editor', 'publisher', 'viewer']);
  });

  it('grants only admin, editor or publisher', () => {
    for (const role of ['admin', 'editor', 'publisher']) {
      expect(GrantBody.safeParse({ userId: 'u1', role }).success, role).toBe(true);
    }
    for (const role of ['owner', 'viewer', 'root']) {
      expect(GrantBody.safeParse({ userId: 'u1', role }).success, role).toBe(false);
    }
    expect(GrantBody.safeParse({ userId: '', role: 'admin' }).success).toBe(false);
  });

  it('changes a member role to admin, editor, publisher or viewer, never owner', () => {
    for (const role of ['admin', 'editor', 'publisher', 'viewer']) {
      expect(UpdateMemberRoleBody.safeParse({ role }).success, role).toBe(true);
    }
    expect(UpdateMemberRoleBody.safeParse({ role: 'owner' }).success).toBe(false);
  });

  it('accepts an access entry and a member', () => {
    const entry = { siteId: 'site:acme', siteName: 'Acme', graphName: 'g', role: 'editor' };
    expect(AccessEntry.parse(entry)).toEqual(entry);
    expect(AccessEntry.safeParse({ ...entry, siteId: 'acme' }).success).toBe(false);
    const member = { userId: 'u1', email: 'a@b.c', role: 'viewer', siteId: 'site:acme' };
    expect(Member.parse(member)).toEqual(member);
  });
});

describe('API keys', () => {
  it('creates a key from a name and a role', () => {
    expect(CreateApiKeyBody.parse({ name: 'ci', role: 'publisher' })).toEqual({
      name: 'ci',
      role: 'publisher',
    });
    expect(CreateApiKeyBody.safeParse({ name: 'ci' }).success).toBe(false);
    expect(CreateApiKeyBody.safeParse({ name: '', role: 'viewer' }).success).toBe(false);
    expect(CreateApiKeyBody.safeParse({ name: 'ci', role: 'owner' }).success).toBe(false);
    expect(CreateApiKeyBody.safeParse({ name: 'ci', role: 'viewer', allowedSites: ['acme'] }).success).toBe(
      false,
    );
  });

  it('lists metadata without the secret and shows the secret once at creation', () => {
    const key = {
      id: 'k1',
      name: 'ci',
      role: 'publisher',
      siteId: 'site:acme',
      prefix: 'trl_ab12',
      createdAt: '2026-06-14T10:00:00Z',
    };
    const listed = ApiKey.parse({ ...key, secret: 'trl_ab12cd34ef56gh78ij90' });
    expect(listed).not.toHaveProperty('secret');
    expect(ApiKeyCreated.parse({ ...key, secret: 'trl_ab12cd34ef56gh78ij90' }).secret).toBe(
      'trl_ab12cd34ef56gh78ij90',
    );
  });
});
