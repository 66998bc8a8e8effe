import { describe, expect, it } from 'vitest';
import { deviceName } from '../../../adapters/http/device-name.ts';

describe('the device a session was started on', () => {
  it('names browsers and systems, scripts by their first token, nothing when nothing usable is said', () => {
    const chrome =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';
    expect(deviceName(chrome)).toBe('Chrome on Linux');
    expect(deviceName(iphone)).toBe('Safari on iPhone');
    expect(deviceName(firefox)).toBe('Firefox on Windows');
    expect(deviceName('curl/8.5.0')).toBe('curl');
    expect(deviceName('node')).toBe('node');
    expect(deviceName(undefined)).toBeNull();
    expect(deviceName('   ')).toBeNull();
    // Markup or a flood in the header never comes through.
    expect(deviceName('<script>alert(1)</script>')).toBeNull();
    expect(deviceName(`x${'y'.repeat(5000)}`)?.length).toBe(31);
  });
});
