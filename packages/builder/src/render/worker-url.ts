import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How to start a render worker: its script, and the Node options it needs. */
export interface WorkerScript {
  url: URL;
  execArgv: string[] | undefined;
}

let fromSource: WorkerScript | null = null;

/** The ES module entry of tsx's `register()` (`tsx/esm/api`, import condition). */
function tsxRegisterUrl(): string {
  const packageJson = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    exports: { './esm/api': { import: { default: string } } };
  };
  return pathToFileURL(join(dirname(packageJson), exports['./esm/api'].import.default)).href;
}

/**
 * The render worker's script. A built package starts `dist/render-worker.js` (core stays an
 * external import, `@trelliscms/core/build`). Running from the TypeScript sources (tests), the
 * worker starts `render-worker.ts` through tsx (registered inside the worker: Node 20 does not
 * apply an `--import` loader to a worker's modules) with the `@trelliscms/source` export
 * condition, so sibling packages resolve to their sources too. Nothing is bundled or written.
 */
export function renderWorkerScript(): WorkerScript {
  if (!import.meta.url.endsWith('.ts')) {
    return { url: new URL('./render-worker.js', import.meta.url), execArgv: undefined };
  }
  if (!fromSource) {
    const entry = new URL('./render-worker.ts', import.meta.url).href;
    const boot = [
      `const { register } = await import(${JSON.stringify(tsxRegisterUrl())});`,
      'register();',
      `await import(${JSON.stringify(entry)});`,
    ].join('\n');
    fromSource = {
      url: new URL(`data:text/javascript,${encodeURIComponent(boot)}`),
      execArgv: ['--conditions=@trelliscms/source'],
    };
  }
  return fromSource;
}
