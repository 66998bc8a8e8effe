import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { BOT_TOKEN, channelHarness, scriptedProvider } from '../../helpers/channels-harness.ts';

describe('the web channel', () => {
  it("answers a posted message synchronously with the agent's reply and keeps the conversation", async () => {
    const h = await channelHarness();
    const { id } = await h.create({ provider: 'web', name: 'Browser' });
    const r = await h.call('POST', `/api/v1/channels/${id}/messages`, { message: 'compost' });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ channelId: id, provider: 'local' });
    expect(r.json.data.reply).toContain('garden/compost.md');
    expect(r.json.data.relatedNotes).toContainEqual({ path: 'garden/compost.md', title: 'Compost' });
    const hist = await h.call('GET', `/api/v1/channels/${id}/messages`);
    expect(hist.json.data).toEqual([
      { role: 'user', content: 'compost', at: expect.any(String) },
      { role: 'assistant', content: r.json.data.reply, at: r.json.data.createdAt },
    ]);
  });

  it('bounds the conversation it keeps to the last 50 turns', async () => {
    const script = scriptedProvider((req) => `reply ${req.messages.length}`);
    const h = await channelHarness({ provider: script.provider });
    const { id } = await h.create({ provider: 'web', name: 'Browser' });
    for (let i = 1; i <= 30; i++) {
      const r = await h.call('POST', `/api/v1/channels/${id}/messages`, { message: `m${i}` });
      expect(r.status).toBe(200);
    }
    const hist = (await h.call('GET', `/api/v1/channels/${id}/messages`)).json.data;
    expect(hist).toHaveLength(50);
    expect(hist.at(-2)).toMatchObject({ role: 'user', content: 'm30' });
    expect(hist[0]).toMatchObject({ role: 'user', content: 'm6' });
  });

  it('refuses messages to a non-web channel (409) and bad bodies (400)', async () => {
    const h = await channelHarness();
    const web = await h.create({ provider: 'web', name: 'Browser' });
    const tg = await h.create({ provider: 'telegram', name: 'bot', credentials: { botToken: BOT_TOKEN } });
    const wrong = await h.call('POST', `/api/v1/channels/${tg.id}/messages`, { message: 'hi' });
    expect(wrong.status).toBe(409);
    for (const body of [{}, { message: '' }, { message: 1 }, { message: 'x'.repeat(20_001) }]) {
      const r = await h.call('POST', `/api/v1/channels/${web.id}/messages`, body);
      expect(r.status).toBe(400);
      expect(r.json.error.details.issues[0].field).toBe('message');
    }
  });

  it('forgets the conversation with the channel, and keeps it across a restart', async () => {
    const state = memoryStateStore();
    const h = await channelHarness({ state });
    const { id } = await h.create({ provider: 'web', name: 'Browser' });
    await h.call('POST', `/api/v1/channels/${id}/messages`, { message: 'garden' });
    const again = await channelHarness({ state });
    expect((await again.call('GET', `/api/v1/channels/${id}/messages`)).json.data).toHaveLength(2);
    await again.call('DELETE', `/api/v1/channels/${id}`);
    expect(await state.get(`channel-history-${id}.json`)).toBeNull();
  });
});
