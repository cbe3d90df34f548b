/** The name of the platform graph (sites, users, members, API keys). */
export const PLATFORM_GRAPH = 'platform';
