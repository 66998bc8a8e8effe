import type { BlobLoc, ChangeKind } from './codec.ts';

/** One version as `GET .../versions` lists it. */
export interface VersionItem {
  id: string;
  at: number;
  size: number;
  checksum: string;
  /** Who made the change: `key:<id>`, `jwt:<subject>`, `mcp:<client> (key:<id>)`, `agent`, `plugin:<id>`, `outside`. */
  by: string;
  change: ChangeKind;
}

/** One item of the trash. */
export interface TrashItem {
  id: string;
  path: string;
  kind: 'note' | 'file';
  deletedAt: number;
  by: string;
  size: number;
  checksum: string;
}

/** What the history keeps in memory about one version or trash item. */
export type Stored<T> = T & { loc: BlobLoc };

/** The in-memory index of a history, shared with pruning. */
export interface HistoryState {
  versions: Map<string, Stored<VersionItem>[]>;
  /** `copy`: where the item's copy lies in the vault's `.trash/` (TRASH_DIR=vault). */
  trash: Map<string, Stored<TrashItem> & { copy?: string }>;
  blobs: Map<string, BlobLoc>;
  /** Bytes of blobs stored uncompressed since the last compaction. */
  rawBytes: number;
}
