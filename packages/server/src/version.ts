/** The API description version (docs/api-spec.md §9). */
export const API_VERSION = '1.0.0';
/** This server's version. */
export const VERSION = '0.0.0';
