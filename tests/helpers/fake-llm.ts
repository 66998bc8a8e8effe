/**
 * Real HTTP servers on loopback that speak the OpenAI chat-completions and Anthropic Messages
 * wire formats, scripted per test. They record every request (path, headers, JSON body).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicProvider, openaiProvider } from '../../adapters/llm/index.ts';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** What the script answers: a status and JSON body, or `hang` to never answer. */
export type Answer = { status?: number; body: unknown } | 'hang';

/**
 * What the real APIs refuse with 400: a tool result that answers no earlier tool call, a
 * request without the fields they require. Null when the request is well formed.
 */
export function wireProblem(dialect: 'openai' | 'anthropic', req: Recorded): string | null {
  const b = req.body;
  if (req.method !== 'POST') return null;
  if (!b || typeof b.model !== 'string' || !Array.isArray(b.messages))
    return 'model and messages are required';
  const seen = new Set<string>();
  if (dialect === 'openai') {
    if (!req.path.endsWith('/chat/completions')) return `unknown path ${req.path}`;
    for (const t of b.tools ?? []) {
      if (
        t.type !== 'function' ||
        typeof t.function?.name !== 'string' ||
        t.function.parameters?.type !== 'object'
      )
        return 'tools[].function needs a name and object parameters';
    }
    for (const m of b.messages) {
      for (const c of m.tool_calls ?? []) seen.add(c.id);
      if (m.role === 'tool' && !seen.has(m.tool_call_id))
        return `tool_call_id ${m.tool_call_id} answers no tool call`;
    }
    return null;
  }
  if (!req.path.endsWith('/messages')) return `unknown path ${req.path}`;
  if (typeof b.max_tokens !== 'number') return 'max_tokens is required';
  if (!req.headers['x-api-key'] || !req.headers['anthropic-version'])
    return 'x-api-key and anthropic-version are required';
  for (const t of b.tools ?? []) {
    if (typeof t.name !== 'string' || t.input_schema?.type !== 'object')
      return 'tools[] need a name and an object input_schema';
  }
  for (const m of b.messages) {
    if (!['user', 'assistant'].includes(m.role)) return `bad role ${m.role}`;
    for (const part of Array.isArray(m.content) ? m.content : []) {
      if (part.type === 'tool_use') seen.add(part.id);
      if (part.type === 'tool_result' && !seen.has(part.tool_use_id))
        return `tool_use_id ${part.tool_use_id} answers no tool_use`;
    }
  }
  return null;
}

/** Starts a scripted server; `answer` gets each request and the ones before it. */
export async function startFakeLlm(
  dialect: 'openai' | 'anthropic',
  answer: (req: Recorded, all: Recorded[]) => Answer | Promise<Answer>,
) {
  const requests: Recorded[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const rec: Recorded = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: raw ? JSON.parse(raw) : null,
    };
    requests.push(rec);
    const problem = wireProblem(dialect, rec);
    const a: Answer = problem
      ? { status: 400, body: { error: { type: 'invalid_request_error', message: problem } } }
      : await answer(rec, requests);
    if (a === 'hang') {
      hanging.add(res);
      return;
    }
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Only the model calls (not the reachability probes). */
    calls: () => requests.filter((r) => r.method === 'POST'),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let seq = 0;

/** An OpenAI chat.completion answer: tool calls, or a final text. */
export function openaiAnswer(o: { text?: string; calls?: { name: string; args: unknown }[] }): Answer {
  const calls = o.calls ?? [];
  return {
    body: {
      id: `chatcmpl-${++seq}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: o.text ?? null,
            ...(calls.length
              ? {
                  tool_calls: calls.map((c, i) => ({
                    id: `call_${seq}_${i}`,
                    type: 'function',
                    function: { name: c.name, arguments: JSON.stringify(c.args) },
                  })),
                }
              : {}),
          },
          finish_reason: calls.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** An Anthropic Messages answer: tool_use blocks, or a final text. */
export function anthropicAnswer(o: { text?: string; calls?: { name: string; args: unknown }[] }): Answer {
  const calls = o.calls ?? [];
  seq++;
  return {
    body: {
      id: `msg_${seq}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-fake',
      content: [
        ...(o.text ? [{ type: 'text', text: o.text }] : []),
        ...calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${seq}_${i}`, name: c.name, input: c.args })),
      ],
      stop_reason: calls.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

/** The text of the transcript's last user turn and the tool outputs sent since, in either dialect. */
function lastTurn(dialect: 'openai' | 'anthropic', req: Recorded) {
  const messages: any[] = req.body.messages;
  const last = messages.at(-1);
  if (dialect === 'openai') {
    if (last.role === 'tool') {
      const outputs: any[] = [];
      for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--)
        outputs.unshift(JSON.parse(messages[i].content));
      return { text: null, outputs };
    }
    return { text: String(last.content), outputs: [] };
  }
  const parts: any[] = Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }];
  const results = parts.filter((p) => p.type === 'tool_result');
  if (results.length)
    return {
      text: null,
      outputs: results.map((p) => JSON.parse(typeof p.content === 'string' ? p.content : p.content[0].text)),
    };
  return { text: parts.map((p) => p.text ?? '').join(''), outputs: [] };
}

/**
 * A small, deterministic "model" for the fake servers, so the contract of the LLM port can run
 * the same chats on every provider: "create a note titled X with text Y" calls create_note (even
 * when the tool is not on offer, as a real model may), anything else searches the notes for the
 * message's last word; given tool results, it answers with the paths they name, or the error.
 */
export function rulesModel(dialect: 'openai' | 'anthropic') {
  return (req: Recorded): { text?: string; calls?: { name: string; args: unknown }[] } => {
    const { text, outputs } = lastTurn(dialect, req);
    if (text === null) {
      const errors = outputs.map((o) => o?.error).filter(Boolean);
      if (errors.length) return { text: `I could not do that: ${errors.join(' ')}` };
      const paths = outputs.flatMap((o) => [
        ...(o?.results ?? []).map((r: any) => r.path),
        ...(o?.created ? [o.created] : []),
      ]);
      return { text: paths.length ? `From your notes: ${paths.join(', ')}.` : 'Nothing found.' };
    }
    const create = text.match(/^create a note titled (\S+)(?: with text (.+))?$/i);
    if (create) {
      const [, title, body] = create;
      return {
        calls: [
          {
            name: 'create_note',
            args: { path: `${title}.md`, content: `# ${title}\n\n${body ? `${body}\n` : ''}` },
          },
        ],
      };
    }
    const words = text.match(/[\p{L}\p{N}]{3,}/gu) ?? [];
    return { calls: [{ name: 'search_notes', args: { query: words.at(-1) ?? text } }] };
  };
}

/** The tool calls a scripted model step makes. */
export type Calls = { name: string; args: unknown }[];

/**
 * Both wire formats as the tests drive them: the provider, the answer builder, the model list, an
 * API error, and readers of what a request sent (the tool results, each `{id, output, isError}` with
 * `isError` where the API has one; the system prompt; the tool names).
 */
export const DIALECTS = [
  {
    name: 'openai' as const,
    make: openaiProvider,
    answer: openaiAnswer,
    models: { object: 'list', data: [{ id: 'm1', object: 'model' }] },
    error: (status: number, message: string): Answer => ({
      status,
      body: { error: { message, type: 'server_error' } },
    }),
    results: (req: Recorded) =>
      req.body.messages
        .filter((m: any) => m.role === 'tool')
        .map((m: any) => ({ id: m.tool_call_id, output: JSON.parse(m.content), isError: undefined })),
    system: (req: Recorded) => req.body.messages[0].content as string,
    toolNames: (req: Recorded) => req.body.tools.map((t: any) => t.function.name) as string[],
  },
  {
    name: 'anthropic' as const,
    make: anthropicProvider,
    answer: anthropicAnswer,
    models: { data: [{ id: 'm1', type: 'model' }], has_more: false },
    error: (status: number, message: string): Answer => ({
      status,
      body: { type: 'error', error: { type: 'api_error', message } },
    }),
    results: (req: Recorded) =>
      req.body.messages.flatMap((m: any) =>
        (Array.isArray(m.content) ? m.content : [])
          .filter((p: any) => p.type === 'tool_result')
          .map((p: any) => ({
            id: p.tool_use_id,
            output: JSON.parse(typeof p.content === 'string' ? p.content : p.content[0].text),
            isError: p.is_error,
          })),
      ),
    system: (req: Recorded) => req.body.system.map((s: any) => s.text).join('\n') as string,
    toolNames: (req: Recorded) => req.body.tools.map((t: any) => t.name) as string[],
  },
];

/** The dialect named `name`. */
export const dialect = (name: 'openai' | 'anthropic') => DIALECTS.find((d) => d.name === name)!;
