import { packageProject } from '../../vitest.shared';

// builds spawn worker threads; test/setup.ts removes each test's temp folders
export default packageProject('builder', { test: { setupFiles: ['test/setup.ts'] } });
