import { packageProject } from '../../vitest.shared';

// Core is pure (no I/O, no module state a test changes): its files share one module graph per
// worker instead of loading core's schemas again for each file.
export default packageProject('core', { test: { isolate: false } });
