import { describe, expect, it } from 'vitest';
import { senderAllowed } from '../../../core/channels/verify.ts';

describe('the allowlist', () => {
  it('lets everyone in when empty and matches ids, usernames and numbers', () => {
    expect(senderAllowed('telegram', [], ['1'])).toBe(true);
    expect(senderAllowed('telegram', ['@Ada'], ['5', '@ada'])).toBe(true);
    expect(senderAllowed('telegram', ['5'], ['6', '@five'])).toBe(false);
    expect(senderAllowed('whatsapp', ['+1 (555) 010-0000'], ['15550100000'])).toBe(true);
    expect(senderAllowed('whatsapp', ['+', 'x'], [''])).toBe(false);
  });
});
