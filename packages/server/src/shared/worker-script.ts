import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';

/**
 * The script of a worker thread named `name` (a tsup entry, see tsup.config.ts), next to the
 * module at `from` (the caller's `import.meta.url`): dist/<name>.js when running from dist/, or
 * <name>.ts through tsx when running from the sources (tests, benches: tsx is registered inside
 * the worker, as Node 20 does not apply an --import loader to a worker's modules, and sibling
 * packages are read from their sources).
 */
export function workerScript(from: string, name: string): { url: URL; execArgv: string[] | undefined } {
  if (!from.endsWith('.ts')) return { url: new URL(`./${name}.js`, from), execArgv: undefined };
  const packageJson = createRequire(from).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    exports: { './esm/api': { import: { default: string } } };
  };
  const tsx = pathToFileURL(join(dirname(packageJson), exports['./esm/api'].import.default)).href;
  const boot = [
    `const { register } = await import(${JSON.stringify(tsx)});`,
    'register();',
    `await import(${JSON.stringify(new URL(`./${name}.ts`, from).href)});`,
  ].join('\n');
  return {
    url: new URL(`data:text/javascript,${encodeURIComponent(boot)}`),
    execArgv: ['--conditions=@trelliscms/source'],
  };
}

/**
 * Starts the worker thread named `name` ({@link workerScript}) with a message channel of its
 * own: the thread gets one port as `workerData.port`, the caller the other. The worker is
 * unref'd (it keeps no process alive); the port is left as the channel makes it.
 */
export function startWorker(from: string, name: string): { worker: Worker; port: MessagePort } {
  const script = workerScript(from, name);
  const channel = new MessageChannel();
  const worker = new Worker(script.url, {
    execArgv: script.execArgv,
    workerData: { port: channel.port2 },
    transferList: [channel.port2],
  });
  worker.unref();
  return { worker, port: channel.port1 };
}
