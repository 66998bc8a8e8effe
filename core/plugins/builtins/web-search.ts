/**
 * `web-search`: an agent tool backed by a SearXNG-compatible search URL
 * (`GET <url>/search?q=...&format=json` answering `{results: [{title, url, content}]}`).
 */
import * as v from 'valibot';
import { DomainError, isDomainError } from '../../errors.ts';
import { definePlugin } from '../define.ts';
import { guardedFetch, isHttpUrl, isPrivateLiteralUrl } from '../egress.ts';

const Config = v.pipe(
  v.object({
    url: v.pipe(
      v.string('Give the search service\'s base URL in "url".'),
      v.url('Must be an absolute URL.'),
      v.check(isHttpUrl, 'Must be an http or https URL.'),
      v.description('Base URL of a SearXNG-compatible service; /search?q=...&format=json is appended.'),
    ),
    apiKey: v.pipe(
      v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
      v.description('Sent as "Authorization: Bearer <apiKey>" when set; write-only.'),
    ),
    language: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$|^all$/))),
    maxResults: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)), 5),
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(500), v.maxValue(60_000)), 10_000),
    allowPrivateNetwork: v.pipe(
      v.optional(v.boolean(), false),
      v.description('Allow a service on loopback or a private network (e.g. SearXNG on this machine).'),
    ),
  }),
  v.forward(
    v.check(
      (c) => c.allowPrivateNetwork || !isPrivateLiteralUrl(c.url),
      'A private or loopback address needs allowPrivateNetwork: true.',
    ),
    ['url'],
  ),
);

const Answer = v.object({
  results: v.array(
    v.looseObject({
      title: v.optional(v.string(), ''),
      url: v.string(),
      content: v.optional(v.nullable(v.string()), ''),
    }),
  ),
});

const Input = v.object({
  query: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500)),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
});

/** The built-in `web-search` plugin. */
export const webSearch = definePlugin({
  id: 'web-search',
  name: 'Web search',
  version: '1.0.0',
  description: 'An agent tool that searches the web through a SearXNG-compatible service you configure.',
  capabilities: ['tools', 'network'],
  configSchema: Config,
  secrets: { apiKey: {} },
  destinations: (c) => [new URL(c.url).origin],
  activate(ctx) {
    const { config } = ctx;
    const get = guardedFetch(ctx.fetch, {
      allowPrivate: config.allowPrivateNetwork,
      resolveHost: ctx.resolveHost,
    });
    const base = config.url.endsWith('/') ? config.url : `${config.url}/`;
    const origin = new URL(config.url).origin;
    return {
      tools: [
        {
          name: 'web_search',
          description: 'Searches the web. Returns titles, URLs and snippets; cite the URLs you use.',
          input: Input,
          write: false,
          async run({ query, limit }: v.InferOutput<typeof Input>, tctx) {
            const u = new URL('search', base);
            u.searchParams.set('q', query);
            u.searchParams.set('format', 'json');
            if (config.language) u.searchParams.set('language', config.language);
            const signals = [AbortSignal.timeout(config.timeoutMs), ...(tctx.signal ? [tctx.signal] : [])];
            let res: Response;
            try {
              res = await get(u.toString(), {
                headers: {
                  accept: 'application/json',
                  'user-agent': `Quire/${ctx.version}`,
                  ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
                },
                signal: AbortSignal.any(signals),
              });
            } catch (err) {
              if (isDomainError(err)) throw err;
              throw new DomainError('PLUGIN_ERROR', `The search service at ${origin} could not be reached.`);
            }
            if (!res.ok) {
              await res.body?.cancel().catch(() => {});
              throw new DomainError(
                'PLUGIN_ERROR',
                `The search service at ${origin} answered ${res.status}.`,
              );
            }
            const parsed = v.safeParse(Answer, await res.json().catch(() => null));
            if (!parsed.success) {
              throw new DomainError(
                'PLUGIN_ERROR',
                `The search service at ${origin} did not answer SearXNG JSON.`,
              );
            }
            const results = parsed.output.results.slice(0, limit ?? config.maxResults).map((r) => ({
              title: r.title.slice(0, 300),
              url: r.url,
              snippet: (r.content ?? '').slice(0, 500),
            }));
            return {
              output: { query, results },
              action: {
                type: 'web_search',
                summary: `Searched the web for "${query}": ${results.length} found.`,
              },
            };
          },
        },
      ],
    };
  },
});
