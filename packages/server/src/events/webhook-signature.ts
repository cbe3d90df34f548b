import { createHmac } from 'node:crypto';

/** The header a delivery's signature travels in. */
export const SIGNATURE_HEADER = 'Trellis-Signature';

/**
 * The `Trellis-Signature` header of a delivery (the Stripe scheme): `t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>" under the subscription's secret>`. Receivers check it with
 * `verifyWebhookSignature` of @trelliscms/sdk, and refuse old timestamps (replays).
 */
export function signatureHeader({ secret, body, at }: { secret: string; body: string; at: Date }): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
