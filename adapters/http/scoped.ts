/**
 * The services as the request's principal sees them (core/auth/scoped.ts): each route takes its
 * note, file and search service through these, so the core decides what a key may see and do.
 * For a principal with full access they return the service itself.
 */
import type { Context } from 'hono';
import { scopedFiles, scopedNotes, scopedRetrieval } from '../../core/auth/scoped.ts';
import type { FileService } from '../../core/files/service.ts';
import type { NoteService } from '../../core/notes/service.ts';
import type { Retrieval } from '../../core/search/retrieval.ts';
import type { AppEnv } from './types.ts';

export const notesFor = (c: Context<AppEnv>, notes: NoteService): NoteService =>
  scopedNotes(notes, c.get('principal'));
export const filesFor = (c: Context<AppEnv>, files: FileService): FileService =>
  scopedFiles(files, c.get('principal'));
export const retrievalFor = (c: Context<AppEnv>, retrieval: Retrieval): Retrieval =>
  scopedRetrieval(retrieval, c.get('principal'));
