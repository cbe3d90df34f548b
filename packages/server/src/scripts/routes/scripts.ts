import { type Script, ScriptParams, ScriptRunResult, TestScriptBody, TrellisError } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf, siteViewOf } from '../../http/site-of';
import { resourceAuditId, resourceNodeId } from '../../site-resources/site-resources';

const errors = errorResponses(400, 401, 403, 404);

/**
 * `POST /api/scripts/{name}/test`: a dry run of a saved script in the sandbox, on the input
 * given, writing nothing (a script stopped at its limit is still reported in the audit chain).
 */
export const scriptRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/scripts/:name/test',
    {
      schema: {
        tags: ['scripts'],
        summary: 'Run a script on a given input, writing nothing',
        description:
          'Runs the saved script in the QuickJS sandbox with its own `timeoutMs` and `memoryMb`, on `input` (default `{}`; `event` defaults to `manual` and `site` to the site). Answers 200 with what it gave: `ok` and the returned `value`, `rejected` and its `message` (it threw or returned `{error}`), or `stopped` and `reason` (`timeout`, `memory`, `stack`); `logs` are its `console.log` lines. Nothing is written, except that a stopped script is recorded in the audit chain (`hook.stopped`).',
        params: ScriptParams,
        body: TestScriptBody.nullable().optional(),
        response: { 200: ScriptRunResult, ...errors },
      },
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request) => {
      const { graph } = siteOf(request);
      const { name } = request.params;
      const spec = { label: 'Script' };
      const node = await graph.getNode(resourceNodeId(spec, name));
      if (!node) throw TrellisError.of('not_found', { resource: `Script \`${name}\`` });
      const script = node.props as unknown as Script;
      const site = await siteViewOf(app, request);
      const outcome = await app.scripts.run({
        name,
        source: script.source,
        input: {
          event: 'manual',
          site: { id: site.id, name: site.name, publicUrl: site.publicUrl },
          ...request.body?.input,
        },
        timeoutMs: script.timeoutMs,
        memoryMb: script.memoryMb,
      });
      if (outcome.status === 'stopped') {
        await app.scripts.report({
          graph,
          kind: 'stopped',
          event: 'manual',
          target: resourceAuditId(spec, name),
          actor: actorOf(request.principal!),
          detail: outcome.message,
          hooks: [`script ${name}`],
        });
      }
      return { script: name, ...outcome };
    },
  );
};
