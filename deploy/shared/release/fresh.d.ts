/** What the release is built from, relative to the repository root. */
export declare const SOURCES: string[];
/** The newest modification time (ms) of a file under `path` (0 when it does not exist). */
export declare function newestMtime(path: string): number;
/** True when the artifact's stamp exists and is newer than every source. */
export declare function isFresh(root: string, stamp: string): boolean;
