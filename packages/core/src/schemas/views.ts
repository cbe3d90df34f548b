import { z } from 'zod';
import { DateTime, ResourceName } from './common';
import { checkPaginate, Paginate, SitePath } from './routes';
import { TemplateName } from './template';

/**
 * Views (`/api/views`) are listing pages: the items `paginate` selects (a content type, a
 * filter and a sort in the syntax of `{% list %}`, a page size), rendered with `template` at
 * `path`, page n > 1 at `<path>page/<n>/`. `seo` sets the page's title, description,
 * canonical URL, social image and indexing.
 */
export const Seo = z
  .object({
    title: z.string().max(300).optional(),
    description: z.string().max(1000).optional(),
    canonicalUrl: z.url().max(2048).optional(),
    ogImage: z.string().max(2048).optional(),
    keywords: z.array(z.string().max(100)).max(50).optional(),
    noindex: z.boolean().optional(),
  })
  .meta({ id: 'Seo' });
export type Seo = z.infer<typeof Seo>;

const viewShape = {
  name: ResourceName,
  title: z.string().max(300).optional(),
  path: SitePath,
  template: TemplateName,
  paginate: Paginate,
  seo: Seo.optional(),
  enabled: z.boolean().default(true),
};

/** A view (GET /api/views/{name}). */
export const View = z
  .object({ ...viewShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'View',
    description:
      'A listing page: the items paginate selects (type, size, sort and where in the {% list %} syntax) rendered with template at path, page n at <path>page/<n>/, with SEO settings.',
  });
export type View = z.infer<typeof View>;

/** GET /api/views */
export const ViewList = z.array(View).meta({ id: 'ViewList' });
export type ViewList = z.infer<typeof ViewList>;

/** POST /api/views */
export const CreateViewBody = z
  .object(viewShape)
  .superRefine((view, ctx) => checkPaginate(view.paginate, ctx))
  .meta({ id: 'CreateViewBody' });
export type CreateViewBody = z.infer<typeof CreateViewBody>;

/** PUT or PATCH /api/views/{name}: the given keys replace the stored ones. */
export const UpdateViewBody = z
  .object({
    title: viewShape.title,
    path: SitePath.optional(),
    template: TemplateName.optional(),
    paginate: Paginate.optional(),
    seo: Seo.optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine((view, ctx) => checkPaginate(view.paginate, ctx))
  .meta({ id: 'UpdateViewBody' });
export type UpdateViewBody = z.infer<typeof UpdateViewBody>;

/** GET and PUT /api/views/{name}/seo: the view's SEO settings (PUT replaces them). */
export const ViewSeoBody = Seo;
export type ViewSeoBody = Seo;

/** Path parameters of /api/views/{name} and /api/views/{name}/seo. */
export const ViewParams = z.object({ name: ResourceName });
export type ViewParams = z.infer<typeof ViewParams>;
