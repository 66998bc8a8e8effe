/**
 * One step of the agent's loop through the Vercel AI SDK: the core's transcript and tools in,
 * text and tool calls out. No tool runs here (tools have no `execute`); the core runs them.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { generateText, jsonSchema, type LanguageModel, type ModelMessage, type ToolSet, tool } from 'ai';
import type {
  AgentMessage,
  LlmProvider,
  StepRequest,
  StepResult,
  ToolSpec,
} from '../../core/agent/provider.ts';
import { providerError } from './errors.ts';

/** The transcript as AI SDK model messages. */
export function toModelMessages(messages: AgentMessage[]): ModelMessage[] {
  return messages.map((m): ModelMessage => {
    if (m.role === 'user') return { role: 'user', content: m.content };
    if (m.role === 'assistant') {
      if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.toolCalls.map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.name,
            input: c.args ?? {},
          })),
        ],
      };
    }
    return {
      role: 'tool',
      content: m.results.map((r) => ({
        type: 'tool-result' as const,
        toolCallId: r.id,
        toolName: r.name,
        output: r.isError
          ? { type: 'error-json' as const, value: r.output as never }
          : { type: 'json' as const, value: (r.output ?? null) as never },
      })),
    };
  });
}

const schemaCache = new WeakMap<object, unknown>();

/** The tools as AI SDK tools (JSON schema from the valibot input; no execute). */
export function toToolSet(tools: ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    let schema = schemaCache.get(t.input);
    if (!schema) {
      schema = toJsonSchema(t.input, { errorMode: 'ignore' });
      delete (schema as { $schema?: string }).$schema;
      schemaCache.set(t.input, schema);
    }
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(schema as never) });
  }
  return set;
}

/** Options of a provider built on an AI SDK language model. */
export interface AiSdkProviderOptions {
  name: string;
  model: string;
  description: string;
  baseURL: string;
  /** Only used to keep it out of error messages. */
  apiKey?: string;
  languageModel: LanguageModel;
  probe?: (signal: AbortSignal) => Promise<boolean>;
  maxOutputTokens?: number;
}

/** An LlmProvider over an AI SDK language model. */
export function aiSdkProvider(o: AiSdkProviderOptions): LlmProvider {
  return {
    name: o.name,
    model: o.model,
    description: o.description,
    probe: o.probe,
    async step(req: StepRequest): Promise<StepResult> {
      try {
        const result = await generateText({
          model: o.languageModel,
          system: req.system,
          messages: toModelMessages(req.messages),
          tools: toToolSet(req.tools),
          maxRetries: 0,
          abortSignal: req.signal,
          maxOutputTokens: o.maxOutputTokens ?? 2048,
        });
        return {
          text: result.text,
          toolCalls: result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: c.input })),
        };
      } catch (err) {
        throw providerError(err, o);
      }
    },
  };
}
