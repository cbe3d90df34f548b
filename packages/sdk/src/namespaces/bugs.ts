import { BugReport, BugReportList, type CreateBugReportBody } from '@trelliscms/core';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';

/** Problem reports (platform-wide): anyone signed in reports; platform admins list and delete. */
export function createBugsApi(transport: Transport) {
  return {
    /**
     * POST /api/bugs: reports a problem. Pass the `requestId` of the answer that went wrong
     * (`ApiError.requestId`, its `X-Request-Id` header) so an operator finds its log lines.
     */
    report: (body: CreateBugReportBody, options: CallOptions = {}): Promise<BugReport> =>
      transport.request({ method: 'post', path: 'bugs', schema: BugReport, json: body, ...options }),
    /** GET /api/bugs: one page of reports, newest first; `requestId` keeps that request's. */
    list: (
      query: { limit?: number; offset?: number; requestId?: string } = {},
      options: CallOptions = {},
    ): Promise<ListPage<BugReport>> =>
      transport.requestPage({
        method: 'get',
        path: 'bugs',
        schema: BugReportList,
        query: { ...query },
        ...options,
      }),
    /** DELETE /api/bugs/{id} (204). */
    delete: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('bugs', id), ...options });
    },
  };
}
export type BugsApi = ReturnType<typeof createBugsApi>;
