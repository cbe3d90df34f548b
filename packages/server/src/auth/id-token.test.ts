import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';

/**
 * ID tokens against a real JWKS served over HTTP on 127.0.0.1 (no stubbed verifier): the
 * server fetches the key set with jose's remote JWKS, as it would from a provider.
 */

const ISSUER = 'https://idp.trellis.test/';
const AUDIENCE = 'trellis-admin';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
let jwks: { keys: JWK[] } = { keys: [] };
let jwksFetches = 0;
let server: Server;
let tp: TestPlatform;
let rsa: KeyPair;
let ec: KeyPair;
let rotated: KeyPair;
let stranger: KeyPair;

async function publicJwk(pair: KeyPair, kid: string, alg: string): Promise<JWK> {
  return { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
}

function sign(
  pair: KeyPair,
  {
    kid,
    alg = 'RS256',
    claims = {},
    iss = ISSUER,
    aud = AUDIENCE,
    exp = '5m',
    nbf,
    sub = 'ada-subject',
  }: {
    kid: string;
    sub?: string;
    alg?: string;
    claims?: Record<string, unknown>;
    iss?: string;
    aud?: string;
    exp?: string | number;
    nbf?: string | number;
  },
): Promise<string> {
  let jwt = new SignJWT({ email: 'ada@example.test', name: 'Ada', ...claims })
    .setProtectedHeader({ alg, kid })
    .setSubject(sub)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime(exp);
  if (nbf !== undefined) jwt = jwt.setNotBefore(nbf);
  return jwt.sign(pair.privateKey);
}

async function call(token: string) {
  return tp.app.inject({
    method: 'GET',
    url: '/api/access/my-sites',
    headers: { authorization: `Bearer ${token}` },
  });
}

beforeAll(async () => {
  rsa = await generateKeyPair('RS256', { extractable: true });
  ec = await generateKeyPair('ES256', { extractable: true });
  rotated = await generateKeyPair('PS256', { extractable: true });
  stranger = await generateKeyPair('RS256', { extractable: true });
  jwks = { keys: [await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(ec, 'ec-1', 'ES256')] };
  server = createServer((_req, res) => {
    jwksFetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  tp = await startTestPlatform({
    env: {
      OIDC_ISSUER: ISSUER,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      OIDC_JWKS_COOLDOWN_MS: '0',
    },
  });
});

afterAll(async () => {
  await tp?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('people signed in with an ID token', () => {
  const as = async (sub: string, email: string) => ({
    authorization: `Bearer ${await sign(rsa, { kid: 'rsa-1', sub, claims: { email, name: sub } })}`,
  });

  it('makes the creator of a site its admin (spec §4 Sites), not its owner', async () => {
    const creator = await as('creator-subject', 'creator@example.test');
    const created = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: creator,
      payload: { name: 'Created by a person', starterKit: 'none' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const site = created.json() as { id: string; graphName: string };
    const mine = await tp.app.inject({ method: 'GET', url: '/api/access/my-sites', headers: creator });
    expect(mine.json()).toEqual([
      { siteId: site.id, siteName: 'Created by a person', graphName: site.graphName, role: 'admin' },
    ]);
    // Admin rights: members and settings; owner-only site deletion stays with the platform owner.
    const members = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: { ...creator, 'x-site-id': site.id },
    });
    expect(members.statusCode).toBe(200);
    expect(members.json()).toEqual([
      expect.objectContaining({ email: 'creator@example.test', role: 'admin' }),
    ]);
    const del = await tp.app.inject({ method: 'DELETE', url: `/api/sites/${site.id}`, headers: creator });
    expect(del.statusCode).toBe(403);
  });

  it('redeems an invitation for the signed-in user: the membership, and no API key', async () => {
    const owner = { authorization: `Bearer ${tp.ownerKey}` };
    const site = (
      await tp.app.inject({
        method: 'POST',
        url: '/api/sites',
        headers: owner,
        payload: { name: 'Invited to' },
      })
    ).json() as { id: string };
    const invitation = await tp.app.inject({
      method: 'POST',
      url: '/api/access/invitations',
      headers: { ...owner, 'x-site-id': site.id },
      payload: { email: 'invitee@example.test', role: 'editor' },
    });
    expect(invitation.statusCode, invitation.body).toBe(201);
    const invitee = await as('invitee-subject', 'invitee@example.test');
    const accepted = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/invitations/accept',
      headers: invitee,
      payload: { token: invitation.json().token },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({
      member: { siteId: site.id, role: 'editor', email: 'invitee@example.test' },
    });
    expect(accepted.json().apiKey).toBeUndefined();
    const types = await tp.app.inject({
      method: 'GET',
      url: '/api/types',
      headers: { ...invitee, 'x-site-id': site.id },
    });
    expect(types.statusCode).toBe(200);
  });
});

describe('ID tokens', () => {
  it('accepts RS256 and ES256 tokens from the provider and maps them to one platform user', async () => {
    const first = await call(await sign(rsa, { kid: 'rsa-1' }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual([]);
    const second = await call(await sign(ec, { kid: 'ec-1', alg: 'ES256' }));
    expect(second.statusCode, second.body).toBe(200);
    const users = await tp.app.trellis.platform.findNodes({
      label: 'User',
      where: [{ prop: 'sub', op: 'eq', value: 'ada-subject' }],
    });
    expect(users.total).toBe(1);
    expect(users.nodes[0]?.props.email).toBe('ada@example.test');
  });

  it('gives the mapped user the sites an admin grants them', async () => {
    const owner = { authorization: `Bearer ${tp.ownerKey}` };
    const site = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: owner,
      payload: { name: 'Ada site' },
    });
    expect(site.statusCode).toBe(201);
    const users = await tp.app.trellis.platform.findNodes({
      label: 'User',
      where: [{ prop: 'sub', op: 'eq', value: 'ada-subject' }],
    });
    const userId = users.nodes[0]?.id;
    const grant = await tp.app.inject({
      method: 'POST',
      url: '/api/access/grant',
      headers: { ...owner, 'x-site-id': site.json().id },
      payload: { userId, role: 'editor' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const mine = await call(await sign(rsa, { kid: 'rsa-1' }));
    expect(mine.json()).toEqual([
      { siteId: site.json().id, siteName: 'Ada site', graphName: site.json().graphName, role: 'editor' },
    ]);
  });

  it("uses the token's persona claim as the default starter kit of the user's sites", async () => {
    // A new subject: the persona is read when the user is first seen.
    const dev = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: {
        authorization: `Bearer ${await new SignJWT({ persona: 'developer' })
          .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
          .setSubject('dev-subject')
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(rsa.privateKey)}`,
      },
      payload: { name: 'Dev docs' },
    });
    expect(dev.statusCode, dev.body).toBe(201);
    const types = await tp.app.inject({
      method: 'GET',
      url: '/api/types',
      headers: { authorization: `Bearer ${tp.ownerKey}`, 'x-site-id': dev.json().id },
    });
    expect(
      types
        .json()
        .map((t: { name: string }) => t.name)
        .sort(),
    ).toEqual(['author', 'doc', 'page', 'release-note', 'tag']);
  });

  it('rejects alg none', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const token = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: 'ada-subject', iss: ISSUER, aud: AUDIENCE, exp: now + 300 })}.`;
    const res = await call(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_credential');
  });

  it('rejects HS256 signed with the public key (algorithm confusion)', async () => {
    const pem = await exportSPKI(rsa.publicKey);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setSubject('ada-subject')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(pem));
    expect((await call(token)).statusCode).toBe(401);
  });

  it('rejects a wrong issuer or audience', async () => {
    expect((await call(await sign(rsa, { kid: 'rsa-1', iss: 'https://evil.test/' }))).statusCode).toBe(401);
    expect((await call(await sign(rsa, { kid: 'rsa-1', aud: 'someone-else' }))).statusCode).toBe(401);
  });

  it('rejects expired and not-yet-valid tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await call(await sign(rsa, { kid: 'rsa-1', exp: now - 600 }));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toContain('expired');
    const early = await call(await sign(rsa, { kid: 'rsa-1', nbf: now + 600 }));
    expect(early.statusCode).toBe(401);
  });

  it('rejects a token whose kid the provider does not publish', async () => {
    const res = await call(await sign(stranger, { kid: 'unknown-kid' }));
    expect(res.statusCode).toBe(401);
    // A key the provider does not publish, under a published kid, fails the signature check.
    expect((await call(await sign(stranger, { kid: 'rsa-1' }))).statusCode).toBe(401);
  });

  it('accepts a rotated signing key without a restart', async () => {
    const before = await call(await sign(rotated, { kid: 'ps-2', alg: 'PS256' }));
    expect(before.statusCode).toBe(401);
    const fetchesBefore = jwksFetches;
    jwks = { keys: [await publicJwk(rotated, 'ps-2', 'PS256')] };
    const after = await call(await sign(rotated, { kid: 'ps-2', alg: 'PS256' }));
    expect(after.statusCode, after.body).toBe(200);
    expect(jwksFetches).toBeGreaterThan(fetchesBefore);
  });

  it('never echoes the token in the error', async () => {
    const token = await sign(rsa, { kid: 'rsa-1', aud: 'someone-else' });
    const res = await call(token);
    expect(res.body).not.toContain(token.split('.')[2]);
  });
});
