import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from '../../io/cli-io';
import { type CommandKit, subcommand, toNonNegativeInt } from '../command-kit';
import { serve } from './serve';

/** Resolves on Ctrl-C (through `io.onInterrupt`); never without it (the process then just ends). */
function untilInterrupted(io: CliIo): Promise<void> {
  return new Promise((resolvePromise) => {
    const stop = io.onInterrupt?.(() => {
      stop?.();
      resolvePromise();
    });
  });
}

/** `cms serve [dir]` */
export function defineServeCommand(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'serve',
    'Preview a build folder locally (127.0.0.1) with working links, until Ctrl-C',
    ['cms serve ./dist', 'cms serve .trellis/sites/by-slug/blog/dev --port 8080'],
    `dir is a build folder (cms-build --out dir), or a directory deploy target (its current build
is served), such as an environment of the server: <data dir>/sites/by-slug/<slug>/<env>. /a/ serves a/index.html, /a serves a or a.html, and 404.html answers what is missing.
Only this machine can connect unless --host says otherwise.`,
  )
    .argument('[dir]', 'build folder (default: the current one)')
    .option('--port <n>', 'port (0 picks a free one)', toNonNegativeInt, 4321)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(
      action<{ port: number; host: string }>(async (context, [dir], options) =>
        serve({
          out: context.out,
          dir: resolve(io.cwd, dir ?? '.'),
          host: options.host,
          port: options.port,
          stop: untilInterrupted(io),
        }),
      ),
    );
}
