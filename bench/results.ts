import type { ChildMessage } from './children.ts';
import type { LoadResult } from './load.ts';
import type { Timing } from './update.ts';

/** Result of the in-process child (see inproc-child.ts). */
export type InprocResult = ChildMessage & {
  parseAllMs: number;
  heapAfterLoad: number;
  saveCacheMs: number;
  loadMs: number;
  update: Timing;
  parse: Timing;
  listRebuild: Timing;
};

/** Everything measured for one vault size; times in ms, sizes in bytes. */
export interface SizeResult {
  notes: number;
  vaultBytes: number;
  folders: number;
  cold: {
    readyMs: number;
    cpuMs: number;
    wallMs: number;
    runs: number[];
    rss: number;
    maxRss: number;
    cacheBytes: number;
  };
  warm: { readyMs: number; cpuMs: number; wallMs: number; runs: number[]; rss: number };
  idleRss: number;
  /** The ceiling (32 connections, then 1) measured just before this vault's routes. */
  ceiling: LoadResult[];
  loads: LoadResult[];
  listBytes: number;
  noteBytes: number;
  put: Timing;
  listAfterWrite: Timing;
  stopMs: number;
  endRss: number;
  endMaxRss: number;
  inproc: InprocResult;
}
