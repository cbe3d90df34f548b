import { describe, expect, it } from 'vitest';
import { toContentWrite } from './content-write';

describe('toContentWrite', () => {
  it('reads either form', () => {
    expect(toContentWrite({ fields: { title: 'Alien' }, relationships: { director: 'person:x' } })).toEqual({
      fields: { title: 'Alien' },
      relationships: { director: 'person:x' },
    });
    expect(toContentWrite({ title: 'Alien', released: 1979 })).toEqual({
      fields: { title: 'Alien', released: 1979 },
    });
    // With other keys beside `fields`, the object is free-form: `fields` is then a field.
    expect(toContentWrite({ fields: { a: 1 }, title: 'x' })).toEqual({
      fields: { fields: { a: 1 }, title: 'x' },
    });
    expect(toContentWrite({ relationships: { director: 'person:x' } })).toEqual({
      fields: {},
      relationships: { director: 'person:x' },
    });
  });

  // Where the core reader (free-form meant "every key is a field") and the server's
  // (reserved keys) disagreed; the server's answers are the contract its route tests pin.
  it('never takes the reserved keys of a free-form body as fields', () => {
    expect(
      toContentWrite({
        title: 'Alien',
        id: 'alien-1979',
        relationships: { director: 'person:x' },
        version: 2,
      }),
    ).toEqual({
      id: 'alien-1979',
      fields: { title: 'Alien' },
      relationships: { director: 'person:x' },
      expectedVersion: 2,
    });
    expect(toContentWrite({ words: 3, expectedVersion: 4 })).toEqual({
      fields: { words: 3 },
      expectedVersion: 4,
    });
  });

  it('reads an id and an expected version beside explicit fields', () => {
    expect(toContentWrite({ fields: { title: 'Alien' }, id: 'movie:alien', version: 1 })).toEqual({
      id: 'movie:alien',
      fields: { title: 'Alien' },
      expectedVersion: 1,
    });
    expect(toContentWrite({ fields: { title: 'Alien' }, expectedVersion: 0 })).toEqual({
      fields: { title: 'Alien' },
      expectedVersion: 0,
    });
  });

  it('keeps a reserved key of the wrong kind as a field', () => {
    expect(toContentWrite({ id: 7, relationships: 'none', version: 'v2' })).toEqual({
      fields: { id: 7, relationships: 'none', version: 'v2' },
    });
    // A non-integer version is neither a field nor an expected version.
    expect(toContentWrite({ title: 'x', version: 1.5 })).toEqual({ fields: { title: 'x' } });
  });
});
