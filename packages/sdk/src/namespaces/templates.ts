import { type CreateTemplateBody, Template, TemplateList, type UpdateTemplateBody } from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/**
 * Liquid templates of the client's site (site-scoped). Writes answered with 502
 * `template_write_not_visible` are retried (they are idempotent).
 */
export function createTemplatesApi(transport: Transport) {
  const api = {
    /** GET /api/templates */
    list: (options: CallOptions = {}): Promise<Template[]> =>
      transport.request({ method: 'get', path: 'templates', schema: TemplateList, ...options }),
    /** GET /api/templates/{name}: the head version with its source. */
    get: (name: string, options: CallOptions = {}): Promise<Template> =>
      transport.request({ method: 'get', path: path('templates', name), schema: Template, ...options }),
    /** GET /api/templates/{name}/versions: every version of a template, oldest first. */
    versions: (name: string, options: CallOptions = {}): Promise<Template[]> =>
      transport.request({
        method: 'get',
        path: `${path('templates', name)}/versions`,
        schema: TemplateList,
        ...options,
      }),
    /** POST /api/templates: creates a template (version 1). */
    create: (body: z.input<typeof CreateTemplateBody>, options: CallOptions = {}): Promise<Template> =>
      transport.request({ method: 'post', path: 'templates', schema: Template, json: body, ...options }),
    /** PUT /api/templates/{name}: writes a new version. */
    update: (
      name: string,
      body: z.input<typeof UpdateTemplateBody>,
      options: CallOptions = {},
    ): Promise<Template> =>
      transport.request({
        method: 'put',
        path: path('templates', name),
        schema: Template,
        json: body,
        ...options,
      }),
    /**
     * DELETE /api/templates/{name}: the template and all its versions (204). A template in use
     * (routes, views, block types, transforms, other templates, the pages of a type) is a 409
     * `in_use` naming them (`error.body.holders`); templates have no cascade.
     */
    delete: async (name: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('templates', name), ...options });
    },
  };
  return api;
}
export type TemplatesApi = ReturnType<typeof createTemplatesApi>;
