import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../../../adapters/log/json-logger.ts';
import { jsonLogger } from '../../../adapters/log/json-logger.ts';
import { answerHot, type HotExchange } from '../../../http-kit/hot-answer.ts';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

describe('the JSON-lines logger', () => {
  it('says which levels it writes (`enabled`), exactly the lines it then writes', () => {
    for (const level of ['debug', 'info', 'warn', 'error', 'silent'] as LogLevel[]) {
      const lines: string[] = [];
      const logger = jsonLogger(level, (l) => lines.push(l));
      for (const at of LEVELS) {
        const before = lines.length;
        logger[at]('x');
        expect([level, at, logger.enabled?.(at)]).toEqual([level, at, lines.length > before]);
      }
    }
  });

  it("a hot answer's access line is made only when the logger writes info (no request id made otherwise)", () => {
    for (const level of ['info', 'warn'] as LogLevel[]) {
      const lines: string[] = [];
      let ids = 0;
      const x: HotExchange = {
        method: 'GET',
        path: '/a%20b',
        search: '',
        started: performance.now(),
        header: () => undefined,
        headerPairs: () => [],
        address: () => undefined,
        signal: () => new AbortController().signal,
        whenGone: () => () => {},
        requestId: () => `id-${++ids}`,
        open: () => true,
        headersSent: () => false,
        write: () => {},
        cut: () => {},
      };
      const frame = {
        routes: [() => ({ status: 200, headers: [] as [string, string][], body: null })],
        logger: jsonLogger(level, (l) => lines.push(l)),
        where: 'test',
        base: () => ({}),
      };
      answerHot(x, frame, () => {});
      expect([level, lines.length, ids]).toEqual(level === 'info' ? [level, 1, 1] : [level, 0, 0]);
      if (level === 'info') expect(JSON.parse(lines[0]!)).toMatchObject({ path: '/a b', requestId: 'id-1' });
    }
  });
});
