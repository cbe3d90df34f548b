import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'builder',
    include: ['src/**/*.test.ts'],
  },
});
