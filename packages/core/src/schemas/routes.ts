import { z } from 'zod';
import { parseSort, parseWhere } from '../content/list-language';
import { ContentId, DateTime, JsonObject, Slug, TypeName } from './common';
import { TemplateName } from './template';

/**
 * Routes (`/api/routes`) are hand-made URLs of a site, beside the item pages types emit:
 * - `page`: renders `template` at `path` with `data` (and the item `contentId`, if given);
 * - `listing`: renders `template` at `path` with the items `paginate` selects, page n > 1
 *   at `<path>page/<n>/`;
 * - `redirect`: answers `path` with a redirect to `redirectTo` (`status` 301 or 302).
 * `slug` is the route's handle in the API; `path` is its URL on the site.
 */
export const RouteKind = z.enum(['page', 'listing', 'redirect']).meta({ id: 'RouteKind' });
export type RouteKind = z.infer<typeof RouteKind>;

/** A site path: starts with `/`, no spaces, `?` or `#`. */
export const SitePath = z
  .string()
  .min(1)
  .max(500)
  .regex(/^\/[^\s?#]*$/, 'must be a path starting with / without spaces, ? or #');

/**
 * What a listing page lists: the items of content type `type`, `size` per page, sorted by
 * `sort` and filtered by `where`, both in the syntax of the `{% list %}` tag (`-date,title`;
 * `featured == true and category == 'news'`). With `field`, the listing is one set of pages per
 * distinct value of that field among those items (each entry of a list field counts): the
 * route's path holds `{value}` (`/tags/{value}/`), replaced by the value's slug, and each set
 * lists the items having that value.
 */
export const Paginate = z
  .object({
    type: TypeName,
    size: z.number().int().min(1).max(1000).optional(),
    sort: z.string().max(500).optional(),
    where: z.string().max(2000).optional(),
    field: z
      .string()
      .max(100)
      .regex(/^[A-Za-z_][\w.-]*$/, 'must be a field name')
      .optional(),
  })
  .meta({ id: 'Paginate' });
export type Paginate = z.infer<typeof Paginate>;

const routeShape = {
  slug: Slug,
  path: SitePath,
  kind: RouteKind.default('page'),
  title: z.string().max(300).optional(),
  template: TemplateName.optional(),
  contentId: ContentId.optional(),
  paginate: Paginate.optional(),
  data: JsonObject.optional(),
  redirectTo: z.string().min(1).max(2048).optional(),
  status: z.union([z.literal(301), z.literal(302)]).optional(),
  enabled: z.boolean().default(true),
};

type RouteLike = {
  path?: string;
  kind?: RouteKind;
  template?: string;
  paginate?: Paginate;
  redirectTo?: string;
};

/** A listing's `where` and `sort` must parse in the list language (so a build never meets one that does not). */
export function checkPaginate(paginate: Paginate | undefined, ctx: z.RefinementCtx): void {
  const checks = [
    ['where', () => parseWhere(paginate?.where ?? '')],
    ['sort', () => parseSort(paginate?.sort)],
  ] as const;
  for (const [key, parse] of checks) {
    try {
      parse();
    } catch (error) {
      const message =
        error instanceof Error ? error.message.replace(/\. `where` is .*$/s, '') : String(error);
      ctx.addIssue({ code: 'custom', path: ['paginate', key], message });
    }
  }
}

function checkRouteKind(route: RouteLike, ctx: z.RefinementCtx): void {
  checkPaginate(route.paginate, ctx);
  if (route.paginate?.field !== undefined && !route.path?.includes('{value}')) {
    ctx.addIssue({
      code: 'custom',
      path: ['path'],
      message: 'a listing paginated by a field needs {value} in its path (e.g. /tags/{value}/)',
    });
  }
  if ((route.kind === 'page' || route.kind === 'listing') && route.template === undefined) {
    ctx.addIssue({ code: 'custom', path: ['template'], message: `a ${route.kind} route needs a template` });
  }
  if (route.kind === 'listing' && route.paginate === undefined) {
    ctx.addIssue({ code: 'custom', path: ['paginate'], message: 'a listing route needs paginate' });
  }
  if (route.kind === 'redirect' && route.redirectTo === undefined) {
    ctx.addIssue({ code: 'custom', path: ['redirectTo'], message: 'a redirect route needs redirectTo' });
  }
}

/** A route (GET /api/routes/{slug}). */
export const Route = z
  .object({ ...routeShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'Route',
    description:
      'A hand-made URL of a site: a page (template at path with data or an item), a listing (template at path over the items paginate selects, page n at <path>page/<n>/) or a redirect (to redirectTo with status 301/302).',
  });
export type Route = z.infer<typeof Route>;

/** GET /api/routes */
export const RouteList = z.array(Route).meta({ id: 'RouteList' });
export type RouteList = z.infer<typeof RouteList>;

/** POST /api/routes */
export const CreateRouteBody = z
  .object(routeShape)
  .superRefine(checkRouteKind)
  .meta({ id: 'CreateRouteBody' });
export type CreateRouteBody = z.infer<typeof CreateRouteBody>;

/** PUT or PATCH /api/routes/{slug}: the given keys replace the stored ones. */
export const UpdateRouteBody = z
  .object({
    path: SitePath.optional(),
    kind: RouteKind.optional(),
    title: routeShape.title,
    template: routeShape.template,
    contentId: routeShape.contentId,
    paginate: routeShape.paginate,
    data: routeShape.data,
    redirectTo: routeShape.redirectTo,
    status: routeShape.status,
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'UpdateRouteBody' });
export type UpdateRouteBody = z.infer<typeof UpdateRouteBody>;

/** Checks a whole route (e.g. after merging an update) against the needs of its kind. */
export const RouteRules = z.object(routeShape).superRefine(checkRouteKind);

/** Path parameters of /api/routes/{slug}. */
export const RouteParams = z.object({ slug: Slug });
export type RouteParams = z.infer<typeof RouteParams>;
