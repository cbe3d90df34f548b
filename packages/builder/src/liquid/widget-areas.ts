import type { SafeHtml } from './create-liquid';

const AREA = /^[a-z][a-z0-9_-]*$/;

/**
 * The `widgets` object of a page: `widgets.<area>` renders that area's widgets when a template
 * reads it (only then, so only pages that show an area depend on its widgets), once per page.
 * Any area name answers (an area without widgets is empty), so a page records the areas it
 * read even while they are empty.
 */
export function widgetAreasObject(render: (area: string) => SafeHtml): Record<string, SafeHtml> {
  const rendered = new Map<string, SafeHtml>();
  const read = (area: string): SafeHtml => {
    let html = rendered.get(area);
    if (!html) {
      html = render(area);
      rendered.set(area, html);
    }
    return html;
  };
  // liquidjs reads own properties only (`ownPropertyOnly`): every area name is one
  return new Proxy({} as Record<string, SafeHtml>, {
    get: (_target, key) => (typeof key === 'string' && AREA.test(key) ? read(key) : undefined),
    has: (_target, key) => typeof key === 'string' && AREA.test(key),
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === 'string' && AREA.test(key)
        ? { configurable: true, enumerable: false, writable: false, value: read(key) }
        : undefined,
  });
}
