import { type Check, EXPOSURE_CHECKS } from './checks.ts';
import { LIMIT_CHECKS } from './checks-limits.ts';
import { HYGIENE_CHECKS } from './checks-more.ts';
import { PUBLISH_CHECKS } from './checks-publish.ts';
import {
  type AuditReport,
  type Finding,
  type Recommendation,
  SEVERITIES,
  type SecuritySnapshot,
  type Severity,
} from './types.ts';

/** Every check the audit runs, in listing order within a severity. */
export const CHECKS: readonly Check[] = [
  ...EXPOSURE_CHECKS,
  ...LIMIT_CHECKS,
  ...HYGIENE_CHECKS,
  ...PUBLISH_CHECKS,
];

/** Points one finding of each severity takes from 100. */
export const WEIGHTS: Record<Severity, number> = { critical: 40, high: 20, medium: 10, low: 4, info: 0 };

/** Highest score while any critical finding stands (so the grade is F). */
export const CRITICAL_CAP = 49;

/** Lowest score of each grade. */
const GRADES: [AuditReport['grade'], number][] = [
  ['A', 90],
  ['B', 80],
  ['C', 65],
  ['D', 50],
  ['F', 0],
];

/**
 * The score of a set of findings: 100 minus the weight of each finding, floored at 0, and at
 * most 49 while a critical finding stands. Each check yields at most one finding and every
 * weight is non-negative, so a setting made less safe can only add findings: the score never rises.
 */
export function scoreOf(findings: readonly Pick<Finding, 'severity'>[]): number {
  const lost = findings.reduce((sum, f) => sum + WEIGHTS[f.severity], 0);
  const score = Math.max(0, 100 - lost);
  return findings.some((f) => f.severity === 'critical') ? Math.min(score, CRITICAL_CAP) : score;
}

/** The letter for a score: A 90+, B 80+, C 65+, D 50+, F below. */
export function gradeOf(score: number): AuditReport['grade'] {
  return GRADES.find(([, min]) => score >= min)?.[0] ?? 'F';
}

const rank = (s: Severity) => SEVERITIES.indexOf(s);

/** The findings of `snapshot`, worst first (check order within one severity). */
export function findingsOf(snapshot: SecuritySnapshot, now: number): Finding[] {
  const out: Finding[] = [];
  for (const check of CHECKS) {
    const description = check.test(snapshot, now);
    if (description === null) continue;
    const { id, severity, title, recommendation } = check;
    out.push({ id, severity, title, description, recommendation });
  }
  // Array.prototype.sort is stable, so check order survives within a severity.
  return out.sort((a, b) => rank(a.severity) - rank(b.severity));
}

/** Runs every check against a snapshot of the live configuration. Pure. */
export function runAudit(snapshot: SecuritySnapshot, now: number): AuditReport {
  const findings = findingsOf(snapshot, now);
  const summary = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) summary[f.severity] += 1;
  const score = scoreOf(findings);
  return { score, grade: gradeOf(score), summary, findings, checkedAt: new Date(now).toISOString() };
}

/**
 * What to do about each finding, most score regained first (then worst first): resolving a
 * recommendation raises the score by its `impact` (info findings: 0, they are choices).
 */
export function recommendationsOf(snapshot: SecuritySnapshot, now: number): Recommendation[] {
  const findings = findingsOf(snapshot, now);
  const score = scoreOf(findings);
  const out = findings.map((f): Recommendation => {
    const check = CHECKS.find((c) => c.id === f.id)!;
    const fix = check.fix(snapshot);
    const impact = scoreOf(findings.filter((g) => g !== f)) - score;
    return {
      id: f.id,
      severity: f.severity,
      title: f.recommendation,
      impact,
      steps: fix.steps,
      variables: fix.variables ?? [],
    };
  });
  return out.sort((a, b) => b.impact - a.impact || rank(a.severity) - rank(b.severity));
}
