import { describe, expect, it } from 'vitest';
import { createLiquid } from './create-liquid';

describe('createLiquid', () => {
  it('parses each partial and layout once, and renders it with every caller’s arguments', () => {
    let reads = 0;
    const templates = new Map([
      ['card', '<{{ x }}>'],
      ['base', '[{% block main %}{% endblock %}]'],
      ['broken', '{% if %}'],
    ]);
    const counted = new Proxy(templates, {
      get(target, key) {
        if (key === 'get') {
          return (name: string) => {
            reads++;
            return target.get(name);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { liquid } = createLiquid({ templates: counted, urls: { publicUrl: null } });
    const page =
      "{% layout 'base' %}{% block main %}{% render 'card', x: 1 %}{% render 'card', x: 2 %}{% endblock %}";
    expect(liquid.parseAndRenderSync(page, {})).toBe('[<1><2>]');
    const afterFirst = reads;
    expect(liquid.parseAndRenderSync(page, {})).toBe('[<1><2>]');
    expect(reads).toBe(afterFirst);
    // a file that fails to parse fails every time
    expect(() => liquid.parseAndRenderSync("{% render 'broken' %}", {})).toThrow();
    expect(() => liquid.parseAndRenderSync("{% render 'broken' %}", {})).toThrow();
    expect(() => liquid.parseAndRenderSync("{% render 'missing' %}", {})).toThrow(/not found|lookup/i);
  });
});
