import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every outbound request of the server goes through the guarded fetcher (issue 16 item 1):
 * no other module of `src/` calls the global `fetch`, makes HTTP, TLS or TCP connections, or
 * lets jose fetch a key set by itself.
 */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GUARDED = 'shared/outbound/guarded-fetch.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** What an outbound call looks like in source; `import type` lines are not calls. */
function outboundCalls(source: string): string[] {
  const found: string[] = [];
  const code = source
    .split('\n')
    .filter((line) => !/^\s*import type /.test(line))
    .join('\n');
  if (/(^|[^.\w])fetch\(/m.test(code)) found.push('fetch(');
  for (const module of ['node:http', 'node:https', 'node:http2', 'node:tls', 'undici', 'http', 'https']) {
    if (new RegExp(`from '${module}'`).test(code)) found.push(module);
  }
  if (/from 'node:net'/.test(code) && /\b(connect|createConnection|Socket)\b/.test(code))
    found.push('node:net connect');
  if (/createRemoteJWKSet\(/.test(code) && !/\[customFetch\]/.test(code))
    found.push('jose remote JWKS without customFetch');
  return found;
}

describe('one way out', () => {
  it('recognises the calls it looks for', () => {
    expect(outboundCalls('const r = await fetch(url);')).toEqual(['fetch(']);
    expect(outboundCalls("import { request } from 'node:https';")).toEqual(['node:https']);
    expect(outboundCalls("import { connect } from 'node:net';")).toEqual(['node:net connect']);
    expect(outboundCalls('createRemoteJWKSet(url, {})')).toEqual(['jose remote JWKS without customFetch']);
    expect(outboundCalls("import type { IncomingMessage } from 'node:http';\noptions.fetch(url);")).toEqual(
      [],
    );
  });

  it('finds outbound calls in the guarded fetcher only', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => ({
        path: relative(SRC, file).split('\\').join('/'),
        calls: outboundCalls(readFileSync(file, 'utf8')),
      }))
      .filter((entry) => entry.path !== GUARDED && entry.calls.length > 0);
    expect(offenders).toEqual([]);
  });
});
