import { UsageError } from '../errors';

const LOCAL_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(:\d+)?$/i;

/**
 * A server URL as the SDK wants it: `http(s)://host[:port][/prefix]` without a trailing
 * `/` or `/api`. A host without a scheme gets `http://` when it is this machine
 * (`localhost`, `127.x`, `[::1]`) and `https://` otherwise. Any other scheme is a usage error.
 */
export function normalizeUrl(input: string): string {
  let url = input.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    const host = url.split('/')[0] ?? '';
    if (host === '' || /\s/.test(host)) throw new UsageError(`Not a server URL: ${input}`);
    url = `${LOCAL_HOST.test(host) ? 'http' : 'https'}://${url}`;
  }
  if (!/^https?:\/\/[^/]/i.test(url)) {
    throw new UsageError(`The server URL must start with http:// or https:// (got ${input}).`);
  }
  url = url.replace(/\/+$/, '');
  if (/\/api$/i.test(url)) url = url.slice(0, -'/api'.length).replace(/\/+$/, '');
  return url;
}

/** A site id `site:<slug>`; a bare slug (`blog`) is taken as `site:blog`. */
export function normalizeSite(input: string): string {
  const site = input.trim();
  if (site.startsWith('site:')) return site;
  if (/^[a-z0-9][a-z0-9-]*$/i.test(site)) return `site:${site}`;
  throw new UsageError(`Not a site: ${input} (give its slug, e.g. blog, or its id site:blog).`);
}
