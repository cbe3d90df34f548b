/** The modes a build may be asked for (the `BuildMode` schema's values), without zod. */
export const BUILD_MODES = ['full', 'incremental', 'auto', 'validate'] as const;
