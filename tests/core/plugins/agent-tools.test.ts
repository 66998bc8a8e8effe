import { afterEach, describe, expect, it } from 'vitest';
import { openaiProvider } from '../../../adapters/llm/index.ts';
import { createAgent } from '../../../core/agent/agent.ts';
import { tempDir } from '../../helpers/app.ts';
import { openaiAnswer, type Recorded, startFakeLlm } from '../../helpers/fake-llm.ts';
import { pluginApp, startSearx } from '../../helpers/plugins.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const VAULT = {
  'garden/compost.md': '# Compost\n\nTurn the heap every two weeks.\n',
  'garden/plan.md': '# Garden plan\n\nAdd compost in April. See [[Tomatoes]].\n',
  'tomatoes.md':
    '# Tomatoes\n\nThey like compost and the garden plan.\n\n```\ncompost in code is not a mention\n```\n',
  'work/standup.md': '# Standup\n\nLinks to [[Compost]] already; compost again.\n',
};
/** 23:30 UTC on Sunday 15 March 2026: already Monday the 16th in Berlin. */
const NOW = Date.UTC(2026, 2, 15, 23, 30);
const SEARCH_KEY = 'search-key-0123456789';

/** Tool results the model was handed, by tool name (from the OpenAI wire format). */
function toolResults(req: Recorded): Record<string, any> {
  const names = new Map<string, string>();
  for (const m of req.body.messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  const out: Record<string, any> = {};
  for (const m of req.body.messages)
    if (m.role === 'tool') out[names.get(m.tool_call_id)!] = JSON.parse(m.content);
  return out;
}

describe("each built-in's tool works through the agent", () => {
  it('open_todays_note, unlinked_mentions and web_search run when an LLM calls them', async () => {
    const searx = await startSearx((q) => [
      { title: `About ${q}`, url: 'https://example.org/compost', content: 'Brown to green, about 3:1.' },
      { title: 'Second', url: 'https://example.org/2', content: 'More.' },
    ]);
    cleanups.push(searx.close);
    const llm = await startFakeLlm('openai', (req, all) => {
      if (req.method === 'GET') return { body: { object: 'list', data: [] } };
      const n = all.filter((r) => r.method === 'POST').length;
      if (n === 1)
        return openaiAnswer({
          calls: [
            { name: 'open_todays_note', args: {} },
            { name: 'unlinked_mentions', args: { path: 'Compost' } },
            { name: 'web_search', args: { query: 'compost ratio', limit: 1 } },
          ],
        });
      return openaiAnswer({ text: 'Done: today is open, two notes mention Compost, and the web says 3:1.' });
    });
    cleanups.push(llm.close);
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const clock = { now: () => NOW };
    const t = await pluginApp(tmp.dir, {
      files: VAULT,
      clock,
      agent: (notes, tools) =>
        createAgent({
          notes,
          clock,
          provider: openaiProvider({ model: 'm1', baseURL: llm.url, apiKey: 'sk-llm' }),
          extraTools: tools,
        }),
    });
    cleanups.push(() => t.plugins.stop());

    const install = async (id: string, config: Record<string, unknown>) => {
      const r = await t.call('POST', '/install', { id, config, enabled: true });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
    };
    await install('daily-notes', {
      timeZone: 'Europe/Berlin',
      template: '# {{date}} {{weekday}}\n\n## Log\n',
    });
    await install('unlinked-mentions', {});
    await install('web-search', { url: searx.url, allowPrivateNetwork: true, apiKey: SEARCH_KEY });

    const status = (await t.send('GET', '/api/v1/agent/status')).json.data;
    expect(status.tools.map((x: { name: string }) => x.name)).toEqual(
      expect.arrayContaining(['open_todays_note', 'unlinked_mentions', 'web_search']),
    );

    const res = await t.send('POST', '/api/v1/agent/chat', {
      body: { message: 'Open today, check Compost, search' },
    });
    expect(res.status, res.text).toBe(200);
    const reply = res.json.data;
    expect(reply.reply).toContain('3:1');
    expect(reply.actions.map((a: { type: string }) => a.type)).toEqual([
      'open_todays_note',
      'unlinked_mentions',
      'web_search',
    ]);
    expect(reply.actions[0]).toMatchObject({
      path: 'daily/2026/2026-03-16.md',
      summary: expect.stringMatching(/^Created/),
    });

    const offered = llm.calls()[0]!.body.tools.map((x: any) => x.function.name);
    expect(offered).toEqual(expect.arrayContaining(['open_todays_note', 'unlinked_mentions', 'web_search']));
    const results = toolResults(llm.calls()[1]!);

    // daily-notes: the note really exists, built from the template in the configured zone.
    expect(results.open_todays_note).toMatchObject({
      date: '2026-03-16',
      path: 'daily/2026/2026-03-16.md',
      created: true,
      content: '# 2026-03-16 Monday\n\n## Log\n',
      title: '2026-03-16 Monday',
    });
    const daily = await t.send('GET', `/api/v1/notes/${encodeURIComponent('daily/2026/2026-03-16.md')}`);
    expect(daily.json.data.title).toBe('2026-03-16 Monday');

    // unlinked-mentions: plan and tomatoes mention Compost without a link; standup links it.
    expect(results.unlinked_mentions.path).toBe('garden/compost.md');
    expect(results.unlinked_mentions.incoming.map((m: { path: string }) => m.path).sort()).toEqual([
      'garden/plan.md',
      'tomatoes.md',
    ]);
    expect(results.unlinked_mentions.incoming.find((m: any) => m.path === 'tomatoes.md')).toMatchObject({
      count: 1,
      matched: 'compost',
      excerpt: expect.stringContaining('They like compost'),
    });

    // web-search: a real request to the SearXNG-compatible server, with the key, limited to 1.
    expect(results.web_search).toEqual({
      query: 'compost ratio',
      results: [
        {
          title: 'About compost ratio',
          url: 'https://example.org/compost',
          snippet: 'Brown to green, about 3:1.',
        },
      ],
    });
    expect(searx.got).toHaveLength(1);
    const sent = new URL(searx.got[0]!.url, 'http://x');
    expect(sent.pathname).toBe('/search');
    expect(sent.searchParams.get('q')).toBe('compost ratio');
    expect(searx.got[0]!.headers.authorization).toBe(`Bearer ${SEARCH_KEY}`);
    for (const path of ['', '/runtime', '/catalog'])
      expect((await t.call('GET', path)).text).not.toContain(SEARCH_KEY);

    // A second chat opens the same note rather than creating another.
    const again = await t.plugins
      .tools()
      .find((x) => x.name === 'open_todays_note')!
      .run({}, {});
    expect(again.output).toMatchObject({ created: false, path: 'daily/2026/2026-03-16.md' });

    // Disabled plugins' tools are gone from the next chat at once.
    await t.call('POST', '/web-search/toggle', { enabled: false });
    const after = (await t.send('GET', '/api/v1/agent/status')).json.data.tools.map(
      (x: { name: string }) => x.name,
    );
    expect(after).not.toContain('web_search');
    expect(after).toContain('unlinked_mentions');
  });
});
