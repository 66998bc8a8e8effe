import { fileURLToPath } from 'node:url';
import { startChild } from './children.ts';
import { type LoadResult, type LoadSettings, runLoad } from './load.ts';

/** The ceiling server, kept running so it can be measured next to each vault's routes. */
export interface Ceiling {
  /** Load tests of the bare server: `load.connections` connections, then one. */
  measure(): Promise<LoadResult[]>;
  stop(): Promise<void>;
}

/** Starts the bare node:http server (ceiling-child.ts) in its own process. */
export async function startCeiling(load: LoadSettings, log: (line: string) => void): Promise<Ceiling> {
  const child = startChild(fileURLToPath(new URL('./ceiling-child.ts', import.meta.url)), {});
  const { url } = await child.waitFor<{ type: string; url: string }>('ready', 60_000);
  const cpu = async () => (await child.ask<{ type: string; cpuUs: number }>({ type: 'mem' }, 'mem')).cpuUs;
  return {
    async measure() {
      const out: LoadResult[] = [];
      for (const connections of [load.connections, 1]) {
        const label = `bare node:http (ceiling)${connections === 1 ? ', 1 connection' : ''}`;
        const r = await runLoad(label, { url, paths: ['/'] }, { ...load, connections }, cpu);
        log(`${label}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
        out.push(r);
      }
      return out;
    },
    async stop() {
      await child.stop();
    },
  };
}
