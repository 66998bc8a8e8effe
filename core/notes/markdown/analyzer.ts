/**
 * The one place that decides which parse computes a note's index fields. Everything in the note
 * core (cold index, writes, link rewriting, the worker pool) calls `analyzeNote`. It is the fast
 * linear parse (`scan.ts`), held to the remark reference (`remark.ts`, `analyzeMarkdown`) by the
 * differential tests (tests/core/notes/markdown/differential.test.ts); pointing `analyzeNote` back
 * at `analyzeMarkdown` is a change of this file only.
 */

import { analyzeMarkdownFast } from './scan.ts';
import type { MarkdownAnalysis } from './types.ts';

/** Computes one note's index fields from its raw text. Never throws. */
export const analyzeNote: (raw: string) => MarkdownAnalysis = analyzeMarkdownFast;
