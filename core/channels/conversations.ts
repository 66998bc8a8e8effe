/** The conversations of the webhook channels, in memory and bounded, with one reply at a time each. */
import type { ChatTurn } from '../agent/types.ts';

interface Conversation {
  turns: ChatTurn[];
  tail: Promise<void>;
}

/**
 * Keeps the last `maxTurns` turns of at most `maxConversations` conversations (the least
 * recently used is forgotten first), and runs the work of one conversation in arrival order.
 */
export function createConversations(opts: { maxTurns: number; maxConversations: number }) {
  const map = new Map<string, Conversation>();
  const touch = (key: string): Conversation => {
    const c = map.get(key) ?? { turns: [], tail: Promise.resolve() };
    map.delete(key);
    map.set(key, c);
    while (map.size > opts.maxConversations) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) break;
      map.delete(oldest);
    }
    return c;
  };
  return {
    /** The turns so far, oldest first (a copy). */
    history(key: string): ChatTurn[] {
      return [...(map.get(key)?.turns ?? [])];
    },
    /** Adds one exchange. */
    record(key: string, user: string, assistant: string): void {
      const c = touch(key);
      c.turns.push({ role: 'user', content: user }, { role: 'assistant', content: assistant });
      if (c.turns.length > opts.maxTurns) c.turns.splice(0, c.turns.length - opts.maxTurns);
    },
    /** Runs `fn` after the work queued before it for `key`; answers what `fn` answers. */
    serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const c = touch(key);
      const run = c.tail.then(fn);
      c.tail = run.then(
        () => {},
        () => {},
      );
      return run;
    },
    /** Forgets every conversation whose key starts with `prefix` (a removed channel). */
    forget(prefix: string): void {
      for (const key of [...map.keys()]) if (key.startsWith(prefix)) map.delete(key);
    },
  };
}
