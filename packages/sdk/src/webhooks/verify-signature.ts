import { TrellisEvent } from '@trelliscms/core';

/** Why {@link verifyWebhookSignature} refused a delivery. */
export type WebhookSignatureProblem =
  | 'missing_header'
  | 'malformed_header'
  | 'too_old'
  | 'mismatch'
  | 'bad_payload';

/** Thrown by {@link verifyWebhookSignature}: the delivery is not to be trusted. */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(
    readonly problem: WebhookSignatureProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `error` is a {@link WebhookSignatureError} (also across copies of the SDK, by name). */
export function isWebhookSignatureError(error: unknown): error is WebhookSignatureError {
  return error instanceof Error && error.name === 'WebhookSignatureError';
}

export interface VerifyWebhookSignatureInput {
  /** The request body exactly as received (a string or its bytes), before any JSON parsing. */
  payload: string | Uint8Array;
  /** The `Trellis-Signature` header: `t=<unix seconds>,v1=<hex>` (several `v1=` are accepted, for secret rotation). */
  header: string | null | undefined;
  /** The subscription's secret (shown once, when it was created). */
  secret: string;
  /** How old (or how far ahead) the signature's time may be, in seconds; default 300. 0 turns the check off. */
  toleranceSec?: number;
  /** The time to compare with (default: now). */
  now?: Date;
}

const encoder = new TextEncoder();

function toHex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Compares two strings in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a Trellis webhook delivery and returns its event: the `Trellis-Signature` header must
 * carry an HMAC-SHA256, under the subscription's secret, of `<t>.<body>` (the Stripe scheme),
 * and `t` must be within `toleranceSec` of now (so an old delivery cannot be replayed).
 * Throws a {@link WebhookSignatureError} otherwise. Uses Web Crypto: Node 20+, Deno, Bun,
 * browsers and edge runtimes.
 *
 * ```ts
 * const event = await verifyWebhookSignature({
 *   payload: rawBody,
 *   header: req.headers['trellis-signature'],
 *   secret: process.env.TRELLIS_WEBHOOK_SECRET,
 * });
 * ```
 */
export async function verifyWebhookSignature(input: VerifyWebhookSignatureInput): Promise<TrellisEvent> {
  const { header, secret, toleranceSec = 300, now = new Date() } = input;
  if (!header) throw new WebhookSignatureError('missing_header', 'no Trellis-Signature header');
  let t: string | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') t = value;
    else if (key === 'v1') signatures.push(value.toLowerCase());
  }
  if (t === null || !/^\d+$/.test(t) || signatures.length === 0) {
    throw new WebhookSignatureError(
      'malformed_header',
      'the Trellis-Signature header is not t=<unix>,v1=<hex>',
    );
  }
  if (toleranceSec > 0 && Math.abs(Math.floor(now.getTime() / 1000) - Number(t)) > toleranceSec) {
    throw new WebhookSignatureError('too_old', `the signature's time is more than ${toleranceSec}s from now`);
  }
  const body = typeof input.payload === 'string' ? input.payload : new TextDecoder().decode(input.payload);
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(`${t}.${body}`)));
  if (!signatures.some((signature) => sameText(signature, expected))) {
    throw new WebhookSignatureError('mismatch', 'the signature does not match the body and the secret');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new WebhookSignatureError('bad_payload', 'the body is not JSON');
  }
  const event = TrellisEvent.safeParse(parsed);
  if (!event.success) throw new WebhookSignatureError('bad_payload', 'the body is not a Trellis event');
  return event.data;
}
