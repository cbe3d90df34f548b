import { describe, expect, it } from 'vitest';
import { templateClosure, templateReferences } from './memory-fs';

describe('templateReferences', () => {
  it('names the templates a source includes, renders or extends by a quoted name, each once', () => {
    const source = [
      "{% layout 'base' %}",
      '{%- include "header" -%}',
      "{% render '_card', item: item %}{% render '_card' %}",
      '{% include dynamic_name %}',
      "{{ 'footer' }}",
    ].join('\n');
    expect(templateReferences(source)).toEqual(['base', 'header', '_card']);
    expect(templateReferences('<p>plain</p>')).toEqual([]);
  });

  it('gives the closure of a template through the templates it names', () => {
    const templates = new Map([
      ['page', "{% layout 'base' %}{% render '_card' %}"],
      ['base', "{% include 'header' %}"],
      ['header', 'h'],
      ['_card', "{% render '_card' %}"],
    ]);
    expect(templateClosure('page', templates)).toEqual(['_card', 'base', 'header', 'page']);
  });
});
