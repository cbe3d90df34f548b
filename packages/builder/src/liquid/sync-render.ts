import {
  AssignTag,
  BlockTag,
  type Context,
  type Emitter,
  Expression,
  evalToken,
  Filter,
  ForTag,
  Hash,
  IfTag,
  isTruthy,
  LayoutTag,
  Liquid,
  LiquidError,
  Output,
  RenderError,
  type Template,
  TypeGuards,
  toValue,
  toValueSync,
  UndefinedVariableError,
  UnlessTag,
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
 * render loop (`renderTemplates`), text and outputs that way, as plain calls, and the tags
 * most pages are made of (`for`, `if`, `unless`, `assign`, `layout`, `block`, and tags of the
 * builder's own that offer a {@link SYNC_RENDER} method), and leaves everything else (other
 * tags, operators, ranges, strict variables, asynchronous renders, custom subclasses) to
 * liquidjs's generators. Written against liquidjs {@link LIQUIDJS_VERSIONS}: on
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
  /** `ForloopDrop` (`forloop` of a `for` loop) */
  forloop: new (
    length: number,
    collection: string,
    variable: string,
  ) => { next(): void };
  /** `BlockDrop` (`block` inside a `{% block %}`) */
  blockDrop: new (
    superBlockRender?: (emitter: Emitter) => unknown,
  ) => object;
}

let known: Known | null | undefined;

/** A template that hands the context it is rendered with to `seen`. */
function probe(seen: (ctx: Context, out: Emitter) => void): Template {
  return { render: seen } as unknown as Template;
}

function knownClasses(): Known | null {
  if (known !== undefined) return known;
  known = null;
  if (!LIQUIDJS_VERSIONS.includes(version)) return known;
  const probing = new Liquid();
  const [text] = probing.parse('x');
  let emitter: Known['emitter'] | undefined;
  let context: object | undefined;
  let forloop: Known['forloop'] | undefined;
  let blockDrop: Known['blockDrop'] | undefined;
  probing.renderSync(
    [
      probe((ctx, out) => {
        context = Object.getPrototypeOf(ctx) as object;
        emitter = out.constructor as Known['emitter'];
      }),
    ],
    {},
  );
  const [loop] = probing.parse('{% for x in list %}{% endfor %}');
  const [block] = probing.parse('{% block b %}{% endblock %}');
  if (loop instanceof ForTag && block instanceof BlockTag) {
    const top = (ctx: Context) =>
      (ctx as unknown as { scopes: Array<Record<string, unknown>> }).scopes.at(-1);
    (loop as unknown as { templates: Template[] }).templates = [
      probe((ctx) => {
        forloop = (top(ctx)?.forloop as object | undefined)?.constructor as Known['forloop'];
      }),
    ];
    (block as unknown as { templates: Template[] }).templates = [
      probe((ctx) => {
        blockDrop = (top(ctx)?.block as object | undefined)?.constructor as Known['blockDrop'];
      }),
    ];
    probing.renderSync([loop, block], { list: [1] });
  }
  if (text && emitter && context && forloop && blockDrop)
    known = { html: text.constructor as Known['html'], emitter, context, forloop, blockDrop };
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

/** The property names of a property access when they are all constant (texts, numbers), kept on the token. */
const CONSTANT_PROPS: unique symbol = Symbol('trellis.constantProps');
type PropertyAccess = Token & { props: Token[]; variable?: Token; [CONSTANT_PROPS]?: unknown[] | null };

/**
 * The values of a property access's properties when each is a token holding a text or number
 * (`post.title`, `item["body"]`, `list[0]`): what evaluating them gives at every render, worked
 * out once per parsed token instead of into a new array at each evaluation; null when one is
 * computed (`a[b]`) or a literal object (`nil`, `empty`).
 */
function constantProps(token: PropertyAccess): unknown[] | null {
  let props = token[CONSTANT_PROPS];
  if (props !== undefined) return props;
  props = [];
  for (const prop of token.props) {
    const content = 'content' in prop ? (prop as { content: unknown }).content : undefined;
    if (typeof content !== 'string' && typeof content !== 'number') {
      props = null;
      break;
    }
    props.push(content);
  }
  token[CONSTANT_PROPS] = props;
  return props;
}

/** `evalPropertyAccessToken` of liquidjs, settled. */
function evaluatePropertyAccess(token: PropertyAccess, ctx: SyncContext, lenient: boolean): unknown {
  let props = constantProps(token);
  if (!props) {
    props = [];
    // `evalTokenValue`: each property's value, through `toValue`
    for (const prop of token.props) props.push(settle(toValue(evaluateToken(prop, ctx, false))));
  }
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

/** A filter handler's `this` (liquidjs's `FilterImpl`). */
interface FilterThis {
  readonly context: SyncContext;
  readonly token: unknown;
  readonly liquid: Liquid;
}
const FILTER_THIS = Symbol('trellis.filterThis');

/** `Filter.render`, settled. */
function renderFilter(filter: Filter, value: unknown, ctx: SyncContext): unknown {
  const f = filter as unknown as {
    args: Array<Token | [string, Token]>;
    handler: AnyFn;
    token: unknown;
    liquid: Liquid;
  };
  // the handler's `this`, kept on the filter for the context it was made for (a loop calls a
  // filter many times in one context)
  let self = (f as { [FILTER_THIS]?: FilterThis })[FILTER_THIS];
  if (self === undefined || self.context !== ctx) {
    self = { context: ctx, token: f.token, liquid: f.liquid };
    (f as { [FILTER_THIS]?: FilterThis })[FILTER_THIS] = self;
  }
  // no arguments (`escape`, `markdown`): the handler called with the value alone, no array for it
  if (f.args.length === 0) return settle(f.handler.call(self, value));
  const argv: unknown[] = [value];
  for (const arg of f.args) {
    if (Array.isArray(arg)) argv.push([arg[0], evaluateToken(arg[1], ctx)]);
    else argv.push(evaluateToken(arg, ctx));
  }
  return settle(f.handler.apply(self, argv));
}

/** `Value.value`, settled. */
function hasOperator(postfix: readonly Token[]): boolean {
  for (let i = 0; i < postfix.length; i++) if (isOperatorToken(postfix[i]!)) return true;
  return false;
}
function evaluateValue(value: Value, ctx: SyncContext, lenientIn: boolean): unknown {
  const filters = value.filters;
  const lenient =
    lenientIn || (ctx.opts.lenientIf === true && filters.length > 0 && filters[0]!.name === 'default');
  const initial = value.initial;
  let result: unknown;
  const postfix = initial.postfix;
  if (initial.evaluate !== expressionEvaluate || hasOperator(postfix)) {
    result = settle(initial.evaluate(ctx, lenient));
  } else {
    // `Expression.evaluate` without operators: every token evaluated, the first is the value
    result = postfix.length > 0 ? evaluateToken(postfix[0], ctx, lenient) : undefined;
    for (let i = 1; i < postfix.length; i++) evaluateToken(postfix[i], ctx, lenient);
  }
  for (const filter of filters) {
    result =
      filter.render === filterRender ? renderFilter(filter, result, ctx) : settle(filter.render(result, ctx));
  }
  return result;
}

/** `Value.value` of liquidjs, settled (through liquidjs's own for a subclass). */
function valueOfValue(value: Value, ctx: SyncContext, lenient: unknown): unknown {
  return value.value === valueValue
    ? evaluateValue(value, ctx, Boolean(lenient))
    : settle(value.value(ctx, lenient as boolean));
}

/**
 * A tag's synchronous render, for tags of the builder's own: called in place of the tag's
 * generator by synchronous renders of an environment {@link installSyncRender} was installed on
 * (its evaluations may use {@link evaluateHash} and `liquid.renderer.renderTemplates`); returns
 * false, having done nothing, when the generator has to render the tag.
 */
export const SYNC_RENDER: unique symbol = Symbol('trellis.syncRender');
export interface SyncRenderable {
  [SYNC_RENDER](ctx: Context, emitter: Emitter): boolean;
}

const hashRender = Hash.prototype.render;

/** `evalToken` of liquidjs, settled; only inside a {@link SYNC_RENDER} method. */
export function evaluateTokenSync(token: Token | undefined, ctx: Context): unknown {
  return evaluateToken(token, ctx as SyncContext);
}

/** `Hash.render` of liquidjs, settled; only inside a {@link SYNC_RENDER} method. */
export function evaluateHash(hash: Hash, ctx: Context): Record<string, unknown> {
  if (hash.render !== hashRender) return toValueSync(hash.render(ctx)) as Record<string, unknown>;
  const tokens = hash.hash as Record<string, Token | undefined>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(tokens)) {
    const token = tokens[key];
    out[key] = token === undefined ? true : evaluateToken(token, ctx as SyncContext);
  }
  return out;
}

/** liquidjs's `createScope`. */
function createScope(from?: object): Record<string, unknown> {
  const scope = Object.create(null) as Record<string, unknown>;
  if (from) Object.assign(scope, from);
  return scope;
}

const objectToString = Object.prototype.toString;

/** liquidjs's `toEnumerable`. */
function toEnumerable(input: unknown): unknown[] {
  const value = toValue(input);
  if (objectToString.call(value) === '[object Array]') return value as unknown[];
  if (typeof value === 'string' && value.length > 0) return [value];
  const isObject = value !== null && (typeof value === 'object' || typeof value === 'function');
  if (isObject && Symbol.iterator in (value as object)) return Array.from(value as Iterable<unknown>);
  if (isObject)
    return Object.keys(value as object).map((key) => [key, (value as Record<string, unknown>)[key]]);
  return [];
}

interface TagFields {
  liquid: Liquid;
}
type Templates = (templates: Template[], ctx: Context, emitter?: Emitter) => unknown;

/** The environment's render loop (this module's, as liquidjs's tags call it), settled. */
function renderAll(tag: TagFields, templates: Template[], ctx: Context, emitter?: Emitter): unknown {
  return settle((tag.liquid.renderer.renderTemplates as Templates)(templates, ctx, emitter));
}

const MODIFIERS = ['offset', 'limit', 'reversed'];

/** What a parsed `for` tag gives at every render, worked out once per tag. */
interface LoopConstants {
  /** its register of `offset: continue` */
  continueKey: string;
  /** the collection's text (`forloop.name`) */
  collection: string;
  /** whether it has modifiers (or a hash liquidjs renders itself) to evaluate */
  modifiers: boolean;
}
const LOOP_CONSTANTS: unique symbol = Symbol('trellis.loopConstants');

function loopConstants(t: {
  variable: string;
  collection: { getText(): string };
  hash: Hash;
  [LOOP_CONSTANTS]?: LoopConstants;
}): LoopConstants {
  let constants = t[LOOP_CONSTANTS];
  if (constants === undefined) {
    const collection = t.collection.getText();
    constants = {
      continueKey: `continue-${t.variable}-${collection}`,
      collection,
      modifiers: t.hash.render !== hashRender || Object.keys(t.hash.hash).length > 0,
    };
    t[LOOP_CONSTANTS] = constants;
  }
  return constants;
}

/** `ForTag.render` of liquidjs. */
function renderFor(tag: ForTag, ctx: SyncContext, emitter: Emitter, k: Known): void {
  const t = tag as unknown as TagFields & {
    variable: string;
    collection: Token & { getText(): string };
    hash: Hash;
    templates: Template[];
    elseTemplates: Template[];
  };
  let collection = toEnumerable(evaluateToken(t.collection, ctx));
  if (!collection.length) {
    renderAll(t, t.elseTemplates, ctx, emitter);
    return;
  }
  const constants = loopConstants(t);
  const continueKey = constants.continueKey;
  if (constants.modifiers) {
    ctx.push(createScope({ continue: ctx.getRegister(continueKey, {}) }));
    const hash = evaluateHash(t.hash, ctx);
    ctx.pop();
    const modifiers = t.liquid.options.orderedFilterParameters
      ? Object.keys(hash).filter((x) => MODIFIERS.includes(x))
      : MODIFIERS.filter((x) => hash[x] !== undefined);
    for (const modifier of modifiers) {
      if (modifier === 'offset') collection = collection.slice(hash.offset as number);
      else if (modifier === 'limit') collection = collection.slice(0, hash.limit as number);
      else collection = [...collection].reverse();
    }
    ctx.setRegister(continueKey, ((hash.offset as number) || 0) + collection.length);
  } else {
    // no modifiers: nothing reads the `continue` scope, the offset is 0 (the register is set as above)
    ctx.setRegister(continueKey, collection.length);
  }
  const scope = createScope();
  scope.forloop = new k.forloop(collection.length, constants.collection, t.variable);
  ctx.push(scope);
  for (const item of collection) {
    scope[t.variable] = item;
    ctx.continueCalled = ctx.breakCalled = false;
    renderAll(t, t.templates, ctx, emitter);
    if (ctx.breakCalled) break;
    (scope.forloop as { next(): void }).next();
  }
  ctx.continueCalled = ctx.breakCalled = false;
  ctx.pop();
}

interface Branch {
  value: Value;
  templates: Template[];
  test?: (value: unknown, ctx: Context) => boolean;
}

/** `IfTag.render` and `UnlessTag.render` of liquidjs (an `if` branch's test is `isTruthy`). */
function renderBranches(tag: IfTag | UnlessTag, ctx: SyncContext, emitter: Emitter): void {
  const t = tag as unknown as TagFields & { branches: Branch[]; elseTemplates?: Template[] };
  for (const { value, templates, test = isTruthy } of t.branches) {
    const v = settle(toValue(valueOfValue(value, ctx, ctx.opts.lenientIf)));
    if (test(v, ctx)) {
      renderAll(t, templates, ctx, emitter);
      return;
    }
  }
  renderAll(t, t.elseTemplates || [], ctx, emitter);
}

/** `AssignTag.render` of liquidjs. */
function renderAssign(tag: AssignTag, ctx: SyncContext): void {
  const t = tag as unknown as TagFields & { key: string; value: Value };
  ctx.bottom()[t.key] = valueOfValue(t.value, ctx, t.liquid.options.lenientIf);
}

/** liquidjs's `BlockMode` */
const OUTPUT = 0;
const STORE = 1;
type BlockRender = (superBlock: object, emitter: Emitter) => unknown;

/** `LayoutTag.render` of liquidjs, for a layout named by a text (else false: liquidjs renders it). */
function renderLayout(tag: LayoutTag, ctx: SyncContext, emitter: Emitter): boolean {
  const t = tag as unknown as TagFields & {
    file?: unknown;
    currentFile?: string;
    args: Hash;
    templates: Template[];
  };
  if (t.file === undefined) {
    ctx.setRegister('blockMode', OUTPUT);
    renderAll(t, t.templates, ctx, emitter);
    return true;
  }
  if (typeof t.file !== 'string' || !t.file) return false;
  const liquid = t.liquid as unknown as {
    _parseLayoutFile(file: string, sync: boolean, currentFile?: string): unknown;
  };
  const templates = settle(liquid._parseLayoutFile(t.file, ctx.sync, t.currentFile)) as Template[];
  // render the remaining contents and store the blocks
  ctx.setRegister('blockMode', STORE);
  const html = renderAll(t, t.templates, ctx);
  const blocks = ctx.getRegister('blocks', {}) as Record<string, BlockRender | undefined>;
  if (blocks[''] === undefined) blocks[''] = (_parent, out) => out.write(html);
  ctx.setRegister('blockMode', OUTPUT);
  // render the layout with the stored blocks
  ctx.push(createScope(evaluateHash(t.args, ctx)));
  renderAll(t, templates, ctx, emitter);
  ctx.pop();
  return true;
}

const blockRenderOf = (BlockTag.prototype as unknown as { getBlockRender: unknown }).getBlockRender;

/** `BlockTag.render` (with its `getBlockRender`) of liquidjs. */
function renderBlock(tag: BlockTag, ctx: SyncContext, emitter: Emitter, k: Known): void {
  const t = tag as unknown as TagFields & { block: string; templates: Template[] };
  const renderChild = (ctx.getRegister('blocks', {}) as Record<string, BlockRender | undefined>)[t.block];
  const renderCurrent: BlockRender = (superBlock, out) => {
    const stack = ctx.getRegister('blockStack', []) as unknown[];
    if (stack.includes(tag)) throw new Error('block tag cannot be nested');
    stack.push(tag);
    ctx.push(createScope({ block: superBlock }));
    renderAll(t, t.templates, ctx, out);
    ctx.pop();
    stack.pop();
  };
  const blockRender: BlockRender = renderChild
    ? (superBlock, out) =>
        renderChild(new k.blockDrop((inner: Emitter) => renderCurrent(superBlock, inner)), out)
    : renderCurrent;
  if (ctx.getRegister('blockMode') === STORE) {
    (ctx.getRegister('blocks', {}) as Record<string, BlockRender>)[t.block] = blockRender;
  } else {
    settle(blockRender(new k.blockDrop(), emitter));
  }
}

const forRender = ForTag.prototype.render;
const ifRender = IfTag.prototype.render;
const unlessRender = UnlessTag.prototype.render;
const assignRender = AssignTag.prototype.render;
const layoutRender = LayoutTag.prototype.render;
const blockRender = BlockTag.prototype.render;

/** Renders a tag without its generator when this module knows how (else false). */
function renderTag(tpl: Template, ctx: SyncContext, emitter: Emitter, k: Known): boolean {
  const render = tpl.render;
  if (render === forRender && tpl instanceof ForTag) renderFor(tpl, ctx, emitter, k);
  else if (
    (render === ifRender && tpl instanceof IfTag) ||
    (render === unlessRender && tpl instanceof UnlessTag)
  )
    renderBranches(tpl, ctx, emitter);
  else if (render === assignRender && tpl instanceof AssignTag) renderAssign(tpl, ctx);
  else if (render === layoutRender && tpl instanceof LayoutTag) return renderLayout(tpl, ctx, emitter);
  else if (
    render === blockRender &&
    tpl instanceof BlockTag &&
    (tpl as unknown as { getBlockRender: unknown }).getBlockRender === blockRenderOf
  )
    renderBlock(tpl, ctx, emitter, k);
  else {
    const own = (tpl as Partial<SyncRenderable>)[SYNC_RENDER];
    return typeof own === 'function' && own.call(tpl, ctx, emitter);
  }
  return true;
}

/** The synchronous renders read the clock for the render time limit before every this many templates. */
export const CLOCK_EVERY = 8;

/**
 * Makes `liquid`'s synchronous renders take the plain-call path (its `renderer.renderTemplates`
 * is replaced on this environment only; other environments are left as they are). Returns
 * whether it was installed (false on a liquidjs version it was not written for).
 */
export function installSyncRender(liquid: Liquid): boolean {
  const k = knownClasses();
  if (!k) return false;
  const renderer = liquid.renderer;
  const original = renderer.renderTemplates.bind(renderer) as RenderTemplates;
  const classes: Known = k;
  const { emitter: DefaultEmitter, html: Html, context: contextProto } = k;
  const htmlRender = (Html.prototype as Template).render;
  /** templates to render before the clock is read again (see below) */
  let untilClock = 0;
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
    // liquidjs reads the clock before the loop and again before each template, outside the
    // `try` (the render time limit's check): here it is read before every
    // {@link CLOCK_EVERY}th template, counted across lists and renders, and an empty list
    // counts as one. The same error from the same check, at most that many templates later: a
    // template never runs long without rendering others (a loop's body, a partial), and reading
    // the clock before each was 1–2.4 % of the render workers' profiles.
    if (templates.length === 0 && --untilClock < 0) {
      untilClock = CLOCK_EVERY - 1;
      limit.check(performance.now());
    }
    for (const tpl of templates) {
      if (--untilClock < 0) {
        untilClock = CLOCK_EVERY - 1;
        limit.check(performance.now());
      }
      try {
        if (tpl instanceof Html && tpl.render === htmlRender) {
          emitter.write((tpl as unknown as { str: string }).str);
        } else if (tpl instanceof Output && tpl.render === outputRender && tpl.value.value === valueValue) {
          emitter.write(settle(toValue(evaluateValue(tpl.value, ctx, false))));
        } else if (!renderTag(tpl, ctx, emitter, classes)) {
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
