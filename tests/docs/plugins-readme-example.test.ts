/** The "Writing your own plugin" example of docs/guide/plugins.md, run as written (imports aside). */
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import {
  createAgent,
  createNoteService,
  createPluginManager,
  definePlugin,
  localProvider,
} from '../../core/index.ts';
import { requester } from '../helpers/app.ts';
import { capturingLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

describe('the plugins guide example', () => {
  it('registers in code, shows in the catalog as "code", and its hook and tool work', async () => {
    const { logger, lines } = capturingLogger();
    const clock = { now: () => Date.now() };
    const state = memoryStateStore();
    const provider = localProvider();
    const notes = createNoteService({
      store: memoryNoteStore({ files: { 'long.md': 'one two three four' } }),
      clock,
    });
    await notes.load();

    const wordGoal = definePlugin({
      id: 'word-goal',
      name: 'Word goal',
      version: '1.0.0',
      description: 'Logs when a note passes a word count; a tool that lists the notes that did.',
      capabilities: ['hooks', 'tools', 'notes:read'],
      configSchema: v.object({ words: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 500) }),
      activate: ({ config, notes, logger }) => ({
        hooks: {
          updated: async (e) => {
            const n = await notes.get(e.path);
            if (n.wordCount >= config.words) logger.info('word goal reached', { path: n.path });
          },
        },
        tools: [
          {
            name: 'notes_over_goal',
            description: `Notes with at least ${config.words} words.`,
            input: v.object({}),
            write: false,
            run: async () => {
              const hits = notes
                .list()
                .filter((n) => n.wordCount >= config.words)
                .map(({ path, title }) => ({ path, title }));
              return {
                output: { notes: hits },
                action: { type: 'notes_over_goal', summary: `${hits.length} notes.` },
                related: hits,
              };
            },
          },
        ],
      }),
    });

    const plugins = createPluginManager({ notes, state, clock, logger, plugins: [wordGoal] });
    await plugins.load();
    stops.push(() => plugins.stop());
    const agent = createAgent({ notes, clock, provider, extraTools: plugins.tools });
    const app = createApp({ notes, agent, plugins, version: '1.0.0', clock, logger });

    const call = requester(app);
    const cat = (await call('GET', '/api/v1/plugins/catalog')).json.data;
    expect(cat.find((p: { id: string }) => p.id === 'word-goal')).toMatchObject({
      source: 'code',
      installed: false,
    });
    await call('POST', '/api/v1/plugins/install', {
      body: { id: 'word-goal', config: { words: 3 }, enabled: true },
    });
    expect(agent.tools().map((t) => t.name)).toContain('notes_over_goal');
    const out = await agent
      .tools()
      .find((t) => t.name === 'notes_over_goal')!
      .run({}, {});
    expect(out.output).toEqual({ notes: [{ path: 'long.md', title: 'long' }] });
    await call('PUT', '/api/v1/notes/long.md', { body: { content: 'now five words in here' } });
    await until('the condition', () => lines.some((l) => l.includes('word goal reached')));
    expect(lines.find((l) => l.includes('word goal reached'))).toContain('"plugin":"word-goal"');
  });
});
