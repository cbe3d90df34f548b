import { afterEach } from 'vitest';
import { removeTempDirs } from './temp-dir';

// No test leaves a folder in the temp dir.
afterEach(removeTempDirs);
