/** The documented operations of the security routes (protected, never cached). */
import * as v from 'valibot';
import type { Operation } from './operation.ts';

const severity = v.picklist(['critical', 'high', 'medium', 'low', 'info']);
const grade = v.picklist(['A', 'B', 'C', 'D', 'F']);
const checkedAt = v.pipe(v.string(), v.isoTimestamp());

/** `GET /api/v1/security/audit` (docs/reference/security.md, "The report"). */
export const AuditReport = v.object({
  score: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
  grade,
  summary: v.object({
    critical: v.number(),
    high: v.number(),
    medium: v.number(),
    low: v.number(),
    info: v.number(),
  }),
  findings: v.array(
    v.object({
      id: v.string(),
      severity,
      title: v.string(),
      description: v.string(),
      recommendation: v.string(),
    }),
  ),
  checkedAt,
});

/** `GET /api/v1/security/recommendations`: steps derived from the findings, by impact. */
export const Recommendations = v.object({
  score: v.number(),
  grade,
  recommendations: v.array(
    v.object({
      id: v.string(),
      severity,
      title: v.string(),
      impact: v.number(),
      steps: v.array(v.string()),
      variables: v.array(v.object({ name: v.string(), value: v.string() })),
    }),
  ),
  checkedAt,
});

/** `GET /api/v1/security/config`: the effective security settings, no secret in them. */
export const SecurityConfig = v.looseObject({
  auth: v.looseObject({ mode: v.string(), header: v.string() }),
  listen: v.looseObject({ host: v.string(), public: v.boolean() }),
  tls: v.looseObject({ expected: v.boolean(), terminatedByProxy: v.boolean() }),
  cors: v.object({ origins: v.array(v.string()) }),
  rateLimits: v.looseObject({ enabled: v.boolean() }),
  bodyLimits: v.looseObject({ maxBodyBytes: v.number() }),
  pairing: v.looseObject({ mode: v.string() }),
  secureHeaders: v.record(v.string(), v.string()),
});

/** The security audit. */
export const security: Operation[] = [
  {
    id: 'securityAudit',
    method: 'get',
    path: '/api/v1/security/audit',
    tag: 'Security',
    summary: 'Score, grade and findings from the live configuration and state',
    data: AuditReport,
  },
  {
    id: 'securityConfig',
    method: 'get',
    path: '/api/v1/security/config',
    tag: 'Security',
    summary: 'The effective security settings (no secrets)',
    data: SecurityConfig,
  },
  {
    id: 'securityRecommendations',
    method: 'get',
    path: '/api/v1/security/recommendations',
    tag: 'Security',
    summary: 'What to change, ordered by the score it regains',
    data: Recommendations,
  },
];
