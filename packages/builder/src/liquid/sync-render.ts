import {
  type Context,
  type Emitter,
  Expression,
  evalToken,
  Filter,
  type Liquid,
  LiquidError,
  Output,
  RenderError,
  type Template,
  TypeGuards,
  toValue,
  toValueSync,
  UndefinedVariableError,
  Value,
  version,
} from 'liquidjs';

/**
 * A synchronous path through liquidjs's rendering for `renderSync` (what builds use), with the
 * same results, reads, errors and limits as liquidjs's own.
 *
 * liquidjs evaluates templates as generators, also when it renders synchronously: one
 * `{{ post.title | escape }}` runs about ten of them (output, value, expression, token,
 * property access, each property, each filter), each an object allocated, resumed and thrown
 * away; with the text between tags, that was most of liquidjs's share of a build's CPU and much
 * of its garbage. In a synchronous render, `yield x` inside those generators is
 * `isIterator(x) ? toValueSync(x) : x` (`toValueSync` drives nested generators and passes any
 * other value back; an error thrown inside is thrown at the `yield`). This module runs the
 * render loop (`renderTemplates`), text and outputs that way, as plain calls, and leaves
 * everything else (tags, operators, ranges, strict variables, asynchronous renders, custom
 * subclasses) to liquidjs's generators. Written against liquidjs {@link LIQUIDJS_VERSIONS}: on
 * another version it is not installed (the tests compare both paths on many templates).
 */
export const LIQUIDJS_VERSIONS: readonly string[] = ['10.30.1'];

type AnyFn = (...args: unknown[]) => unknown;
type RenderTemplates = Liquid['renderer']['renderTemplates'];
type Token = Expression['postfix'][number];

const { isOperatorToken, isPropertyAccessToken } = TypeGuards;

function isIterator(value: unknown): value is Generator {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Generator).next === 'function' &&
    typeof (value as Generator).throw === 'function' &&
    typeof (value as Generator).return === 'function'
  );
}

/** What `yield value` gives inside a generator driven by `toValueSync`. */
function settle(value: unknown): unknown {
  return isIterator(value) ? toValueSync(value) : value;
}

/** liquidjs's classes this path stands in for, read from what liquidjs makes (some are not exported). */
interface Known {
  /** the text node's class */
  html: new (
    ...args: never[]
  ) => Template;
  /** the emitter of a render without one */
  emitter: new () => Emitter & { buffer: string };
  /** `Context.prototype` */
  context: object;
}

let known: Known | null | undefined;

function knownClasses(liquid: Liquid): Known | null {
  if (known !== undefined) return known;
  known = null;
  if (!LIQUIDJS_VERSIONS.includes(version)) return known;
  const [text] = liquid.parse('x');
  let emitter: Known['emitter'] | undefined;
  let context: object | undefined;
  const probe = {
    render(ctx: Context, out: Emitter) {
      context = Object.getPrototypeOf(ctx) as object;
      emitter = out.constructor as Known['emitter'];
    },
  } as unknown as Template;
  liquid.renderSync([probe], {});
  if (text && emitter && context) known = { html: text.constructor as Known['html'], emitter, context };
  return known;
}

interface SyncContext extends Context {
  strictVariables: boolean;
  opts: Context['opts'] & { lenientIf?: boolean; keepOutputType?: boolean; catchAllErrors?: boolean };
}

/** `evalToken` of liquidjs, settled (ranges and filtered values through liquidjs's own). */
function evaluateToken(token: Token | undefined, ctx: SyncContext, lenient = false): unknown {
  if (!token) return undefined;
  if ('content' in token) return (token as { content: unknown }).content;
  if (isPropertyAccessToken(token)) return evaluatePropertyAccess(token, ctx, lenient);
  return toValueSync(evalToken(token, ctx, lenient));
}

/** `evalPropertyAccessToken` of liquidjs, settled. */
function evaluatePropertyAccess(
  token: Token & { props: Token[]; variable?: Token },
  ctx: SyncContext,
  lenient: boolean,
): unknown {
  const props: unknown[] = [];
  // `evalTokenValue`: each property's value, through `toValue`
  for (const prop of token.props) props.push(settle(toValue(evaluateToken(prop, ctx, false))));
  try {
    if (token.variable) return fromScope(ctx, evaluateToken(token.variable, ctx, lenient), props);
    return fromScope(
      ctx,
      (ctx as unknown as { findScope(key: unknown): unknown }).findScope(props[0]),
      props,
    );
  } catch (e) {
    if (lenient && (e as Error).name === 'InternalUndefinedVariableError') return null;
    throw new UndefinedVariableError(e as Error, token as never);
  }
}

/** `Context._getFromScope`, settled (strict variables through liquidjs's own). */
function fromScope(ctx: SyncContext, start: unknown, paths: unknown[]): unknown {
  if (ctx.strictVariables)
    return toValueSync(
      ctx._getFromScope(start as Parameters<Context['_getFromScope']>[0], paths as string[]),
    );
  let scope = start;
  const read = ctx.readProperty as (this: Context, obj: unknown, key: unknown) => unknown;
  for (let i = 0; i < paths.length; i++) scope = settle(read.call(ctx, scope, paths[i]));
  return scope;
}

const filterRender = Filter.prototype.render;
const valueValue = Value.prototype.value;
const expressionEvaluate = Expression.prototype.evaluate;
const outputRender = Output.prototype.render;

/** `Filter.render`, settled. */
function renderFilter(filter: Filter, value: unknown, ctx: SyncContext): unknown {
  const f = filter as unknown as {
    args: Array<Token | [string, Token]>;
    handler: AnyFn;
    token: unknown;
    liquid: Liquid;
  };
  const argv: unknown[] = [value];
  for (const arg of f.args) {
    if (Array.isArray(arg)) argv.push([arg[0], evaluateToken(arg[1], ctx)]);
    else argv.push(evaluateToken(arg, ctx));
  }
  return settle(f.handler.apply({ context: ctx, token: f.token, liquid: f.liquid }, argv));
}

/** `Value.value`, settled. */
function evaluateValue(value: Value, ctx: SyncContext, lenientIn: boolean): unknown {
  const filters = value.filters;
  const lenient =
    lenientIn || (ctx.opts.lenientIf === true && filters.length > 0 && filters[0]!.name === 'default');
  const initial = value.initial;
  let result: unknown;
  if (initial.evaluate !== expressionEvaluate || initial.postfix.some((token) => isOperatorToken(token))) {
    result = settle(initial.evaluate(ctx, lenient));
  } else {
    // `Expression.evaluate` without operators: every token evaluated, the first is the value
    const operands: unknown[] = [];
    for (const token of initial.postfix) operands.push(evaluateToken(token, ctx, lenient));
    result = operands[0];
  }
  for (const filter of filters) {
    result =
      filter.render === filterRender ? renderFilter(filter, result, ctx) : settle(filter.render(result, ctx));
  }
  return result;
}

/**
 * Makes `liquid`'s synchronous renders take the plain-call path (its `renderer.renderTemplates`
 * is replaced on this environment only; other environments are left as they are). Returns
 * whether it was installed (false on a liquidjs version it was not written for).
 */
export function installSyncRender(liquid: Liquid): boolean {
  const k = knownClasses(liquid);
  if (!k) return false;
  const renderer = liquid.renderer;
  const original = renderer.renderTemplates.bind(renderer) as RenderTemplates;
  const { emitter: DefaultEmitter, html: Html, context: contextProto } = k;
  const htmlRender = (Html.prototype as Template).render;
  function renderTemplates(templates: Template[], context: Context, given?: Emitter): unknown {
    const ctx = context as SyncContext;
    if (
      !ctx.sync ||
      ctx.opts.catchAllErrors ||
      (!given && ctx.opts.keepOutputType) ||
      Object.getPrototypeOf(ctx) !== contextProto
    ) {
      return original(templates, context, given);
    }
    const emitter = given ?? new DefaultEmitter();
    const limit = ctx.renderLimit;
    limit.check(performance.now());
    for (const tpl of templates) {
      limit.check(performance.now());
      try {
        if (tpl instanceof Html && tpl.render === htmlRender) {
          emitter.write((tpl as unknown as { str: string }).str);
        } else if (tpl instanceof Output && tpl.render === outputRender && tpl.value.value === valueValue) {
          emitter.write(settle(toValue(evaluateValue(tpl.value, ctx, false))));
        } else {
          const html = settle(tpl.render(ctx, emitter));
          if (html) emitter.write(html);
        }
        if (ctx.breakCalled || ctx.continueCalled) break;
      } catch (e) {
        throw LiquidError.is(e) ? e : new RenderError(e as Error, tpl);
      }
    }
    return emitter.buffer;
  }
  renderer.renderTemplates = renderTemplates as unknown as RenderTemplates;
  return true;
}
