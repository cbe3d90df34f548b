import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isWebhookSignatureError, verifyWebhookSignature } from './verify-signature';

const secret = 'whsec_sdk_test_secret_0123456789';
const body = JSON.stringify({
  id: 'evt_01',
  type: 'build.failed',
  siteId: 'site:blog',
  occurredAt: '2026-06-01T10:00:00.000Z',
  data: { buildId: 'b1' },
});
const at = new Date('2026-06-01T10:00:00.000Z');
const t = Math.floor(at.getTime() / 1000);
const sign = (text: string, key = secret, time = t) =>
  `t=${time},v1=${createHmac('sha256', key).update(`${time}.${text}`).digest('hex')}`;

async function problemOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'none';
  } catch (error) {
    expect(isWebhookSignatureError(error)).toBe(true);
    return (error as { problem: string }).problem;
  }
}

describe('verifyWebhookSignature', () => {
  it('returns the event of a delivery signed with the secret, from text or bytes', async () => {
    const header = sign(body);
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at })).toMatchObject({
      id: 'evt_01',
      type: 'build.failed',
      data: { buildId: 'b1' },
    });
    const bytes = new TextEncoder().encode(body);
    expect((await verifyWebhookSignature({ payload: bytes, header, secret, now: at })).id).toBe('evt_01');
    // During a secret rotation a header may carry several v1 signatures.
    const rotated = `${sign(body, 'whsec_old_secret_0000000000')},v1=${sign(body).split('v1=')[1]}`;
    expect((await verifyWebhookSignature({ payload: body, header: rotated, secret, now: at })).id).toBe(
      'evt_01',
    );
  });

  it('refuses a changed body, another secret, an old timestamp, and a missing or malformed header', async () => {
    const header = sign(body);
    expect(await problemOf(verifyWebhookSignature({ payload: `${body} `, header, secret, now: at }))).toBe(
      'mismatch',
    );
    expect(
      await problemOf(
        verifyWebhookSignature({ payload: body, header, secret: 'whsec_other_secret_000000', now: at }),
      ),
    ).toBe('mismatch');
    const later = new Date(at.getTime() + 301_000);
    expect(await problemOf(verifyWebhookSignature({ payload: body, header, secret, now: later }))).toBe(
      'too_old',
    );
    expect(
      await problemOf(
        verifyWebhookSignature({ payload: body, header, secret, now: later, toleranceSec: 600 }),
      ),
    ).toBe('none');
    expect(await problemOf(verifyWebhookSignature({ payload: body, header: undefined, secret }))).toBe(
      'missing_header',
    );
    expect(await problemOf(verifyWebhookSignature({ payload: body, header: 'v1=abc', secret }))).toBe(
      'malformed_header',
    );
    const notEvent = '{"hello":"world"}';
    expect(
      await problemOf(verifyWebhookSignature({ payload: notEvent, header: sign(notEvent), secret, now: at })),
    ).toBe('bad_payload');
  });
});
