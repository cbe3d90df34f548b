import { z } from 'zod';
import type { CallOptions, Transport } from '../http/transport';

/** The site's generated TypeScript (site-scoped): `cms sdk generate` writes both files. */
export function createSdkFilesApi(transport: Transport) {
  return {
    /** GET /api/sdk/types.d.ts: the `.d.ts` of the site's content types (`ContentTypes`). */
    types: (options: CallOptions = {}): Promise<string> =>
      transport.request({ method: 'get', path: 'sdk/types.d.ts', schema: z.string(), ...options }),
    /** GET /api/sdk/client.ts: `createSiteClient(options)`, typed by `./types.js`. */
    client: (options: CallOptions = {}): Promise<string> =>
      transport.request({ method: 'get', path: 'sdk/client.ts', schema: z.string(), ...options }),
  };
}
export type SdkFilesApi = ReturnType<typeof createSdkFilesApi>;
