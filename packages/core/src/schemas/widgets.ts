import { z } from 'zod';
import { DateTime, JsonObject, ResourceName } from './common';

/**
 * Widgets (`/api/widgets`) are small reusable pieces of a page (a newsletter box, a list of
 * recent posts, a banner) placed in a named `area` of the layout (e.g. `sidebar`, `footer`).
 * A build gives templates `widgets.<area>`: the HTML of the enabled widgets of the area in
 * ascending `order`, each one's Liquid `template` rendered with its `settings` in scope as
 * `widget.settings`.
 */
const widgetShape = {
  name: ResourceName,
  label: z.string().max(200).optional(),
  area: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase area name such as sidebar'),
  /** Liquid source. */
  template: z.string().max(100_000),
  settings: JsonObject.default({}),
  order: z.number().int().min(-10_000).max(10_000).default(0),
  enabled: z.boolean().default(true),
};

/** A widget (GET /api/widgets/{name}). */
export const Widget = z
  .object({ ...widgetShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'Widget',
    description:
      'A reusable page piece placed in a layout area (e.g. sidebar): its Liquid template rendered with its settings; an area shows its enabled widgets in ascending order.',
  });
export type Widget = z.infer<typeof Widget>;

/** GET /api/widgets */
export const WidgetList = z.array(Widget).meta({ id: 'WidgetList' });
export type WidgetList = z.infer<typeof WidgetList>;

/** POST /api/widgets */
export const CreateWidgetBody = z.object(widgetShape).meta({ id: 'CreateWidgetBody' });
export type CreateWidgetBody = z.infer<typeof CreateWidgetBody>;

/** PUT or PATCH /api/widgets/{name}: the given keys replace the stored ones. */
export const UpdateWidgetBody = z
  .object({
    label: widgetShape.label,
    area: widgetShape.area.optional(),
    template: widgetShape.template.optional(),
    settings: JsonObject.optional(),
    order: z.number().int().min(-10_000).max(10_000).optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'UpdateWidgetBody' });
export type UpdateWidgetBody = z.infer<typeof UpdateWidgetBody>;

/** Path parameters of /api/widgets/{name}. */
export const WidgetParams = z.object({ name: ResourceName });
export type WidgetParams = z.infer<typeof WidgetParams>;
