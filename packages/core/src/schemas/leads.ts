import { z } from 'zod';
import { DateTime, queryLimit, queryOffset, Slug } from './common';

/** The limits of one lead (docs/leads.md): field count, name and value lengths. */
export const LEAD_LIMITS = {
  /** extra fields besides name, email and message */
  maxFields: 30,
  maxFieldNameLength: 64,
  maxValueLength: 5000,
  maxMessageLength: 20_000,
} as const;

/** The form fields a lead post reads itself and never stores as a lead field. */
export const LEAD_CONTROL_FIELDS = ['site', '_redirect', '_honeypot'] as const;

/**
 * POST /api/leads: what a form on a published site posts (JSON or
 * `application/x-www-form-urlencoded`). `site` (the site's slug) names the site, else the
 * request's `Origin` does. `_honeypot` must stay empty (a hidden field people never fill);
 * `_redirect` is where a browser goes after a non-JS post (one of the site's own origins). Any
 * other field is stored as given (at most {@link LEAD_LIMITS}).
 */
export const LeadSubmission = z
  .object({
    site: Slug.optional(),
    name: z.string().max(LEAD_LIMITS.maxValueLength).optional(),
    email: z.string().max(LEAD_LIMITS.maxValueLength).optional(),
    message: z.string().max(LEAD_LIMITS.maxMessageLength).optional(),
    _redirect: z.string().max(2048).optional(),
    _honeypot: z.string().max(LEAD_LIMITS.maxValueLength).optional(),
  })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .meta({ id: 'LeadSubmission' });
export type LeadSubmission = z.infer<typeof LeadSubmission>;

/** A lead as stored in its site's graph and listed to members. */
export const Lead = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    message: z.string().nullable(),
    /** every other field the form posted, as text */
    fields: z.record(z.string(), z.string()),
    /** the page the form was on (its `Referer`), when known */
    pageUrl: z.string().nullable(),
    /** the `Origin` the post came from, when sent */
    origin: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Lead' });
export type Lead = z.infer<typeof Lead>;

/** GET /api/leads: newest first. */
export const LeadList = z.array(Lead).meta({ id: 'LeadList' });
export type LeadList = z.infer<typeof LeadList>;

/** The answer to an accepted lead post (a honeypot post gets the same). */
export const LeadAccepted = z.object({ ok: z.literal(true) }).meta({ id: 'LeadAccepted' });
export type LeadAccepted = z.infer<typeof LeadAccepted>;

/** GET /api/leads query: paging (default 50, at most 1000) and `format=csv` for the CSV export. */
export const LeadListQuery = z.object({
  limit: queryLimit({ fallback: 50, max: 1000 }),
  offset: queryOffset(),
  format: z.enum(['json', 'csv']).optional(),
});
export type LeadListQuery = z.infer<typeof LeadListQuery>;

/** Path parameters of /api/leads/{id}. */
export const LeadParams = z.object({ id: z.string().min(1).max(200) });
export type LeadParams = z.infer<typeof LeadParams>;
