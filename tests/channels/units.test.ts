import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createSeenSet } from '../../core/channels/dedupe.ts';
import { hubSignatureValid } from '../../core/channels/signature.ts';
import { splitReply } from '../../core/channels/split.ts';
import { ChannelStateError } from '../../core/channels/store.ts';
import { senderAllowed } from '../../core/channels/verify.ts';
import { channelHarness } from './harness.ts';

describe('splitReply', () => {
  it('keeps short text whole and cuts long text at paragraphs, lines, then spaces', () => {
    expect(splitReply('  hello  ', 10)).toEqual(['hello']);
    expect(splitReply('aaaaaaaa\n\nbbbb\ncccc dddd', 12)).toEqual(['aaaaaaaa', 'bbbb\ncccc', 'dddd']);
    expect(splitReply('aaaa\n\nbbbb\ncccc dddd', 12)).toEqual(['aaaa\n\nbbbb', 'cccc dddd']);
    expect(splitReply('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('never splits a surrogate pair and caps the number of parts', () => {
    const parts = splitReply('😀'.repeat(10), 5);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(5);
    expect(parts.join('')).toBe('😀'.repeat(10));
    const capped = splitReply('word '.repeat(1000), 20, 3);
    expect(capped).toHaveLength(3);
    expect(capped[2]!.endsWith('…')).toBe(true);
    for (const p of capped) expect(p.length).toBeLessThanOrEqual(20);
  });
});

describe('the retry memory', () => {
  it('remembers keys up to its capacity, forgetting the oldest', () => {
    const seen = createSeenSet(2);
    expect([seen.firstTime('a'), seen.firstTime('a'), seen.firstTime('b'), seen.firstTime('c')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(seen.size).toBe(2);
    expect(seen.firstTime('a')).toBe(true);
    expect(seen.firstTime('c')).toBe(false);
  });
});

describe('X-Hub-Signature-256', () => {
  it('accepts only the HMAC of the exact bytes under the app secret', async () => {
    const body = new TextEncoder().encode('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    expect(await hubSignatureValid('s3cret', body, good)).toBe(true);
    expect(await hubSignatureValid('s3cret', body, good.toUpperCase().replace('SHA256', 'sha256'))).toBe(
      true,
    );
    expect(await hubSignatureValid('other', body, good)).toBe(false);
    expect(await hubSignatureValid('s3cret', new TextEncoder().encode('{"a":2}'), good)).toBe(false);
    expect(await hubSignatureValid('s3cret', body, undefined)).toBe(false);
    expect(await hubSignatureValid('s3cret', body, good.slice(7))).toBe(false);
  });
});

describe('the allowlist', () => {
  it('lets everyone in when empty and matches ids, usernames and numbers', () => {
    expect(senderAllowed('telegram', [], ['1'])).toBe(true);
    expect(senderAllowed('telegram', ['@Ada'], ['5', '@ada'])).toBe(true);
    expect(senderAllowed('telegram', ['5'], ['6', '@five'])).toBe(false);
    expect(senderAllowed('whatsapp', ['+1 (555) 010-0000'], ['15550100000'])).toBe(true);
    expect(senderAllowed('whatsapp', ['+', 'x'], [''])).toBe(false);
  });
});

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
