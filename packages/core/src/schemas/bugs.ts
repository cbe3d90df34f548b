import { z } from 'zod';
import { DateTime, JsonObject, queryLimit, queryOffset } from './common';

/** The size limit of a bug report's `context`, in bytes of its JSON. */
export const BUG_CONTEXT_MAX_BYTES = 16 * 1024;

/**
 * POST /api/bugs: a client's report. `requestId` is the `x-request-id` header of the answer that
 * went wrong — the same id the server's log line of that request carries (`reqId`).
 */
export const CreateBugReportBody = z
  .object({
    message: z.string().trim().min(1).max(4000),
    context: JsonObject.optional().refine(
      (context) => context === undefined || JSON.stringify(context).length <= BUG_CONTEXT_MAX_BYTES,
      `context must be at most ${BUG_CONTEXT_MAX_BYTES} bytes of JSON`,
    ),
    requestId: z.string().min(1).max(200).optional(),
  })
  .meta({ id: 'CreateBugReportBody' });
export type CreateBugReportBody = z.infer<typeof CreateBugReportBody>;

/** A stored bug report (platform graph). */
export const BugReport = z
  .object({
    id: z.string(),
    message: z.string(),
    context: JsonObject,
    requestId: z.string().nullable(),
    /** the reporting user (`user:<id>`) and, for an API key, the key (`key:<id>`) */
    reporter: z.string(),
    reporterKey: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'BugReport' });
export type BugReport = z.infer<typeof BugReport>;

/** GET /api/bugs: newest first. */
export const BugReportList = z.array(BugReport).meta({ id: 'BugReportList' });
export type BugReportList = z.infer<typeof BugReportList>;

/** GET /api/bugs query: paging (default 50) and a `requestId` filter. */
export const BugListQuery = z.object({
  limit: queryLimit({ fallback: 50, max: 1000 }),
  offset: queryOffset(),
  requestId: z.string().min(1).max(200).optional(),
});
export type BugListQuery = z.infer<typeof BugListQuery>;

/** Path parameters of /api/bugs/{id}. */
export const BugParams = z.object({ id: z.string().min(1).max(200) });
export type BugParams = z.infer<typeof BugParams>;
