import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { ChannelStateError } from '../../../core/channels/store.ts';
import { channelHarness } from '../../helpers/channels-harness.ts';

describe('channel state', () => {
  it('generates secrets and ids from the injected randomness', async () => {
    let n = 0;
    const h = await channelHarness({ random: (k) => Uint8Array.from({ length: k }, () => n++ % 256) });
    const { id, secret } = await h.create({ provider: 'web', name: 'w' });
    expect(secret).toBe('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8');
    expect(id).toBe('ch_2021222324252627');
  });

  it('refuses a damaged channels.json with one clear line and never overwrites it', async () => {
    const state = memoryStateStore();
    await state.put('channels.json', '{"v":1,"channels":[{"id":"x"}]}');
    const err = await channelHarness({ state }).catch((e) => e);
    expect(err).toBeInstanceOf(ChannelStateError);
    expect(err.message).toMatch(/channels\.json .*damaged \(field channels\.0\./);
    await state.put('channels.json', 'not json');
    await expect(channelHarness({ state })).rejects.toThrow(/not valid JSON/);
    expect(await state.get('channels.json')).toBe('not json');
  });
});
