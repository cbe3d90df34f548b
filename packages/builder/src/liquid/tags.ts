import type { Context, Emitter, Liquid, TagToken, Template, TopLevelToken, ValueToken } from 'liquidjs';
import { evalToken, Hash, Tag, Tokenizer } from 'liquidjs';
import type { TraverseQuery } from '../source/content-source';
import type { TrackingReader } from '../source/tracking-reader';
import { parseSort, parseWhere } from '../source/where';
import type { RenderMemo } from './render-memo';
import { pageKitTemplateName } from './site-fragments';
import { evaluateHash, evaluateTokenSync, SYNC_RENDER } from './sync-render';

/** Holds the reader of the render in progress; the custom tags read content through it. */
export interface ReaderSlot {
  reader: TrackingReader | null;
  /** the page template of the render in progress (named in errors) */
  template?: string | null;
  /** records that the render read a site fragment (a page kit) by its template name */
  fragment?: ((name: string) => void) | null;
  /** memoized `{% render %}` outputs (see `render-memo.ts`); none: every partial renders */
  memo?: RenderMemo | null;
}

/** The most items one `{% list %}` or `{% traverse %}` returns; asking for more and matching more fails the render. */
export const MAX_TAG_ITEMS = 1000;

/** The arguments of `{% list %}` that are not `$name` parameters of its `where`. */
const LIST_ARGS = new Set(['where', 'sort', 'limit', 'offset']);

function inTemplate(slot: ReaderSlot): string {
  return slot.template ? ` in template "${slot.template}"` : '';
}

const tail = /^(.*?)\s+as\s+([A-Za-z_][\w-]*)\s*$/s;

/** Splits `<args> as <var>`; throws a parse error naming the tag when `as <var>` is missing. */
function splitAs(token: TagToken, liquid: Liquid): { tokenizer: Tokenizer; variable: string } {
  const match = tail.exec(token.args);
  if (!match) throw new Error(`{% ${token.name} %} needs "as <variable>" at the end`);
  return { tokenizer: new Tokenizer(match[1]!, liquid.options.operators), variable: match[2]! };
}

function reader(slot: ReaderSlot): TrackingReader {
  if (!slot.reader) throw new Error('content is not available in this render');
  return slot.reader;
}

function toInt(value: unknown, fallback: number | undefined, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Math.trunc(Number(value));
  if (!Number.isFinite(number) || number < 0) return fallback;
  return Math.min(number, max);
}

function idOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') {
    return (value as { id: string }).id;
  }
  return '';
}

/**
 * Registers `{% list %}`, `{% traverse %}`, `{% similar %}` and `{% query %}`. Each assigns its result to a
 * variable, like `assign`:
 *
 * - `{% list 'post' where: "featured == true", sort: "-date", limit: 10, offset: 0 as posts %}`
 * - `{% list 'post' where: "tags contains $tag", tag: t as tagged %}` (`$tag` bound to `t`)
 * - `{% traverse item 'RELATED' direction: 'out', depth: 2, limit: 20 as related %}`
 * - `{% similar item limit: 5 as alike %}`
 * - `{% query 'recent-posts' since: 2021, tag: t as posts %}`: runs a saved query with these
 *   parameters (`limit:`/`offset:` page it unless the query declares parameters of those
 *   names); without `as`, the variable is the query's name with `_` for other characters
 *   (`recent_posts`). Its rows, each with `url`, and `<var>_total`.
 *
 * and `{% pagekit 'hero' title: page.title, cta: "Join" %}`, which renders page kit `hero`'s
 * fragment in place, with the named arguments as `slots` (`{{ slots.title }}`) beside the
 * variables of the page.
 */
export function registerContentTags(liquid: Liquid, slot: ReaderSlot): void {
  liquid.registerTag(
    'list',
    class ListTag extends Tag {
      private readonly type: ValueToken;
      private readonly args: Hash;
      private readonly variable: string;
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        const { tokenizer, variable } = splitAs(token, engine);
        const type = tokenizer.readValue();
        if (!type) throw new Error("{% list %} needs a content type: {% list 'post' as posts %}");
        this.type = type;
        this.args = new Hash(tokenizer);
        this.variable = variable;
      }
      *render(ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
        const type = String(yield evalToken(this.type, ctx));
        const args = (yield this.args.render(ctx)) as Record<string, unknown>;
        this.run(ctx, type, args);
      }
      [SYNC_RENDER](ctx: Context): boolean {
        this.run(ctx, String(evaluateTokenSync(this.type, ctx)), evaluateHash(this.args, ctx));
        return true;
      }
      private run(ctx: Context, type: string, args: Record<string, unknown>): void {
        // every other argument binds a `$name` of the `where`: values, never spliced text
        const params: Record<string, unknown> = {};
        for (const key of Object.keys(args)) if (!LIST_ARGS.has(key)) params[key] = args[key];
        const requested = toInt(args.limit, 100, Number.MAX_SAFE_INTEGER) ?? 100;
        const offset = toInt(args.offset, 0, Number.MAX_SAFE_INTEGER) ?? 0;
        const result = reader(slot).list({
          type,
          where: typeof args.where === 'string' ? parseWhere(args.where, { values: params }) : [],
          sort: parseSort(typeof args.sort === 'string' ? args.sort : undefined),
          limit: Math.min(requested, MAX_TAG_ITEMS),
          offset,
        });
        if (requested > MAX_TAG_ITEMS && result.total - offset > MAX_TAG_ITEMS) {
          throw new Error(
            `{% list '${type}' %}${inTemplate(slot)} matched ${result.total} items, more than the ${MAX_TAG_ITEMS} one list returns (limit: ${requested} was asked): nothing is cut silently; paginate instead (a listing route with paginate: {type, size, field}, or limit and offset)`,
          );
        }
        ctx.bottom()[this.variable] = result.items;
        ctx.bottom()[`${this.variable}_total`] = result.total;
      }
    },
  );

  liquid.registerTag(
    'query',
    class QueryTag extends Tag {
      private readonly queryName: ValueToken;
      private readonly args: Hash;
      private readonly variable: string | null;
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        const match = tail.exec(token.args);
        const tokenizer = new Tokenizer(match ? match[1]! : token.args, engine.options.operators);
        const name = tokenizer.readValue();
        if (!name)
          throw new Error("{% query %} needs a saved query's name: {% query 'recent-posts' as posts %}");
        this.queryName = name;
        this.args = new Hash(tokenizer);
        this.variable = match ? match[2]! : null;
      }
      *render(ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
        const name = String(yield evalToken(this.queryName, ctx));
        const args = (yield this.args.render(ctx)) as Record<string, unknown>;
        const params: Record<string, unknown> = {};
        const declared = reader(slot).source.data.queries?.find((query) => query.name === name)?.params ?? {};
        let limit: number | undefined;
        let offset: number | undefined;
        for (const [key, value] of Object.entries(args)) {
          if (key === 'limit' && !Object.hasOwn(declared, key)) limit = toInt(value, undefined, 1000);
          else if (key === 'offset' && !Object.hasOwn(declared, key))
            offset = toInt(value, undefined, Number.MAX_SAFE_INTEGER);
          else if (value !== undefined && value !== null) params[key] = value;
        }
        const result = reader(slot).query({
          name,
          params,
          ...(limit !== undefined && limit > 0 ? { limit } : {}),
          ...(offset !== undefined ? { offset } : {}),
        });
        const variable = this.variable ?? name.replace(/[^A-Za-z0-9_]/g, '_');
        ctx.bottom()[variable] = result.items;
        ctx.bottom()[`${variable}_total`] = result.total;
      }
    },
  );

  liquid.registerTag(
    'traverse',
    class TraverseTag extends Tag {
      private readonly from: ValueToken;
      private readonly edge: ValueToken;
      private readonly args: Hash;
      private readonly variable: string;
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        const { tokenizer, variable } = splitAs(token, engine);
        const from = tokenizer.readValue();
        const edge = tokenizer.readValue();
        if (!from || !edge)
          throw new Error(
            "{% traverse %} needs an item and an edge label: {% traverse item 'RELATED' as related %}",
          );
        this.from = from;
        this.edge = edge;
        this.args = new Hash(tokenizer);
        this.variable = variable;
      }
      *render(ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
        const from = idOf(yield evalToken(this.from, ctx));
        const edge = String(yield evalToken(this.edge, ctx));
        const args = (yield this.args.render(ctx)) as Record<string, unknown>;
        this.run(ctx, from, edge, args);
      }
      [SYNC_RENDER](ctx: Context): boolean {
        const from = idOf(evaluateTokenSync(this.from, ctx));
        const edge = String(evaluateTokenSync(this.edge, ctx));
        this.run(ctx, from, edge, evaluateHash(this.args, ctx));
        return true;
      }
      private run(ctx: Context, from: string, edge: string, args: Record<string, unknown>): void {
        const direction: TraverseQuery['direction'] =
          args.direction === 'in' || args.direction === 'both' ? args.direction : 'out';
        const requested = toInt(args.limit, 100, Number.MAX_SAFE_INTEGER) ?? 100;
        const items = from
          ? reader(slot).traverse({
              from,
              edge,
              direction,
              depth: toInt(args.depth, 1, 3) ?? 1,
              // one more than returned, to tell a cut result from a complete one
              limit: requested > MAX_TAG_ITEMS ? MAX_TAG_ITEMS + 1 : requested,
            })
          : [];
        if (items.length > MAX_TAG_ITEMS) {
          throw new Error(
            `{% traverse '${edge}' %}${inTemplate(slot)} reached more than ${MAX_TAG_ITEMS} items (limit: ${requested} was asked): nothing is cut silently; lower depth or limit`,
          );
        }
        ctx.bottom()[this.variable] = items;
      }
    },
  );

  liquid.registerTag(
    'pagekit',
    class PageKitTag extends Tag {
      private readonly kit: ValueToken;
      private readonly args: Hash;
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        const tokenizer = new Tokenizer(token.args, engine.options.operators);
        const kit = tokenizer.readValue();
        if (!kit)
          throw new Error(`{% pagekit %} needs a page kit id: {% pagekit 'hero' title: page.title %}`);
        this.kit = kit;
        tokenizer.skipBlank();
        if (tokenizer.peek() === ',') tokenizer.advance();
        this.args = new Hash(tokenizer);
      }
      *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
        const id = String(yield evalToken(this.kit, ctx));
        const name = pageKitTemplateName(id);
        slot.fragment?.(name);
        if (!this.liquid.options.fs.existsSync?.(name)) {
          throw new Error(`page kit "${id}" does not exist or has no template`);
        }
        const slots = (yield this.args.render(ctx)) as Record<string, unknown>;
        const templates = (yield this.liquid._parsePartialFile(name, ctx.sync)) as Template[];
        ctx.push({ slots, kit: { id } });
        try {
          yield this.liquid.renderer.renderTemplates(templates, ctx, emitter);
        } finally {
          ctx.pop();
        }
      }
    },
  );

  liquid.registerTag(
    'similar',
    class SimilarTag extends Tag {
      private readonly from: ValueToken;
      private readonly args: Hash;
      private readonly variable: string;
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        const { tokenizer, variable } = splitAs(token, engine);
        const from = tokenizer.readValue();
        if (!from) throw new Error('{% similar %} needs an item: {% similar item limit: 5 as alike %}');
        this.from = from;
        this.args = new Hash(tokenizer);
        this.variable = variable;
      }
      *render(ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
        const from = idOf(yield evalToken(this.from, ctx));
        const args = (yield this.args.render(ctx)) as Record<string, unknown>;
        ctx.bottom()[this.variable] = from
          ? reader(slot).similar({ from, limit: toInt(args.limit, 5, 100) ?? 5 })
          : [];
      }
    },
  );
}
