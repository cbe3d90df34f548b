import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ScriptHost } from '../../scripts/script-host';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs site scripts and item hooks in a sandbox worker (scripts/script-host.ts). */
    scripts: ScriptHost;
  }
}

/** Owns the script host: its sandbox worker starts on first use and ends when the app closes. */
export const scriptsPlugin = fp(
  async (app: FastifyInstance) => {
    const host = new ScriptHost(app.log.child({ component: 'scripts' }));
    app.decorate('scripts', host);
    app.addHook('onClose', async () => {
      await host.close();
    });
  },
  { name: 'trellis-scripts', dependencies: ['trellis-context'] },
);
