import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How to start a render worker: its script, and the Node options it needs. */
export interface WorkerScript {
  url: URL;
  execArgv: string[] | undefined;
}

/** Scripts started from the TypeScript sources, by source path. */
const fromSource = new Map<string, WorkerScript>();

/** The ES module entry of tsx's `register()` (`tsx/esm/api`, import condition). */
function tsxRegisterUrl(): string {
  const packageJson = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    exports: { './esm/api': { import: { default: string } } };
  };
  return pathToFileURL(join(dirname(packageJson), exports['./esm/api'].import.default)).href;
}

/**
 * A worker's script: `built` (a file next to this module once bundled into `dist/`) from a
 * built package, else `source` (relative to this file) from the TypeScript sources. A built
 * package starts `dist/<built>` (core stays an external import, `@trelliscms/core/build`).
 * Running from the sources (tests), the worker starts its `.ts` through tsx (registered inside
 * the worker: Node 20 does not apply an `--import` loader to a worker's modules) with the
 * `@trelliscms/source` export condition, so sibling packages resolve to their sources too.
 * Nothing is bundled or written.
 */
export function workerScript(files: { built: string; source: string }): WorkerScript {
  if (!import.meta.url.endsWith('.ts')) {
    return { url: new URL(`./${files.built}`, import.meta.url), execArgv: undefined };
  }
  let script = fromSource.get(files.source);
  if (!script) {
    const entry = new URL(files.source, import.meta.url).href;
    const boot = [
      `const { register } = await import(${JSON.stringify(tsxRegisterUrl())});`,
      'register();',
      `await import(${JSON.stringify(entry)});`,
    ].join('\n');
    script = {
      url: new URL(`data:text/javascript,${encodeURIComponent(boot)}`),
      execArgv: ['--conditions=@trelliscms/source'],
    };
    fromSource.set(files.source, script);
  }
  return script;
}

/** The render worker's script (`dist/render-worker.js`, or `render-worker.ts` through tsx). */
export function renderWorkerScript(): WorkerScript {
  return workerScript({ built: 'render-worker.js', source: './render-worker.ts' });
}
