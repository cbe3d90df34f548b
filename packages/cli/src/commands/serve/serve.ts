import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { ExitCode, UsageError } from '../../errors';
import type { Output } from '../../io/output';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

async function fileAt(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder a build is served from: `dir` itself, or its `current` pointer when `dir` is a
 * directory deploy target (`versions/` and a `current` symlink).
 */
export async function servedRoot(dir: string): Promise<string> {
  if (!(await isDirectory(dir))) throw new UsageError(`Cannot serve ${dir}: no such folder.`);
  const current = join(dir, 'current');
  return (await isDirectory(current)) && !(await fileAt(join(dir, 'index.html'))) ? current : dir;
}

/**
 * What a request path resolves to in `root`, as a static host does: `/a/` is `/a/index.html`;
 * `/a` is the file `a`, else `a.html`, else (a folder) a redirect to `/a/`; nothing outside
 * `root` is ever read.
 */
export async function resolveRequest(
  root: string,
  urlPath: string,
): Promise<{ file: string } | { redirect: string } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]!.split('#')[0]!);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const target = resolve(root, `.${decoded}`);
  if (target !== root && !target.startsWith(root + sep)) return null;
  if (decoded.endsWith('/')) {
    const index = await fileAt(join(target, 'index.html'));
    return index ? { file: index } : null;
  }
  const file = (await fileAt(target)) ?? (await fileAt(`${target}.html`));
  if (file) return { file };
  if (await fileAt(join(target, 'index.html'))) return { redirect: `${urlPath.split('?')[0]}/` };
  return null;
}

/** Starts the preview server of `root` on `host`:`port` (0 picks a free port). */
export async function startStaticServer({
  root,
  host,
  port,
}: {
  root: string;
  host: string;
  port: number;
}): Promise<{ server: Server; url: string }> {
  const server = createServer(async (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const found = await resolveRequest(root, request.url ?? '/');
    if (found && 'redirect' in found) {
      response.writeHead(301, { location: found.redirect }).end();
      return;
    }
    const file = found?.file ?? (await fileAt(join(root, '404.html')));
    const status = found ? 200 : 404;
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    response.writeHead(status, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`Port ${port} on ${host} is in use: pick another with --port, or --port 0.`)
          : error,
      ),
    );
    server.listen(port, host, resolvePromise);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shownHost}:${address.port}/` };
}

/**
 * `cms serve [dir]`: serves a build folder (from `cms-build --out`, or a directory deploy
 * target) at http://127.0.0.1:<port>/ until `stop` resolves (Ctrl-C), so its root-relative
 * links work as they will at the site's domain.
 */
export async function serve({
  out,
  dir,
  host,
  port,
  stop,
  onListening,
}: {
  out: Output;
  dir: string;
  host: string;
  port: number;
  stop: Promise<unknown>;
  onListening?: (url: string) => void;
}): Promise<number> {
  const root = await servedRoot(dir);
  const { server, url } = await startStaticServer({ root, host, port });
  out.note(`Serving ${root} at ${url} (Ctrl-C to stop)`);
  if (out.isJson) out.stdout.write(`${JSON.stringify({ ok: true, url, root })}\n`);
  onListening?.(url);
  await stop;
  server.closeAllConnections();
  await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
  out.note('Stopped.');
  return ExitCode.ok;
}
