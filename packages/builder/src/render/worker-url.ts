import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

let bundled: Promise<URL> | null = null;

/**
 * The worker script. Built packages ship `dist/render-worker.js`. When the builder runs from
 * its TypeScript sources (tests), the worker is bundled once per process with esbuild (into the
 * package's `node_modules/.cache`).
 */
export function renderWorkerUrl(): Promise<URL> {
  const built = new URL('./render-worker.js', import.meta.url);
  if (built.protocol === 'file:' && existsSync(fileURLToPath(built))) return Promise.resolve(built);
  bundled ??= bundleFromSource();
  return bundled;
}

async function bundleFromSource(): Promise<URL> {
  const entry = fileURLToPath(new URL('./render-worker.ts', import.meta.url));
  const coreSource = fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url));
  // Inside the package, so what the worker loads on first use (sanitize-html) resolves from it.
  const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
  mkdirSync(cache, { recursive: true });
  const out = join(mkdtempSync(join(cache, 'trellis-worker-')), 'render-worker.mjs');
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    alias: { '@trelliscms/core': coreSource },
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'silent',
  });
  return pathToFileURL(out);
}
