import { createQuireClient, QuireApiError } from '../../../sdk/index.ts';
import { CliProblem, type Command, EXIT, fetchWithin, parse, redactLink, serverUrlFrom } from './common.ts';

/** Turns "could not connect" into a line that says what to do. */
export function unreachable(url: string, err: unknown): never {
  if (err instanceof QuireApiError)
    throw new CliProblem(`${url} answered ${err.status} ${err.code}: ${err.message}`);
  throw new CliProblem(
    `Cannot reach a Quire server at ${url}: is it running (quire serve)? Else pass --url.`,
  );
}

/** `quire setup`: the setup links of a running server; the key only with --show-key. */
export const setup: Command = {
  help: `Usage: quire setup [options]

Asks the running server for its setup payload (GET /api/v1/system/setup) and prints the links
that connect a client. The API key is shown only with --show-key, and only while setup is not
complete (after the first client links, the server itself shows it redacted).

Options:
  --url <url>     The server (default QUIRE_URL, else http://HOST:PORT from the environment)
  --show-key      Also print the first API key (and keep it in open-port links)
  --json          The whole payload as JSON (the key hidden unless --show-key)
  -h, --help      This help

Exit 0 when printed, 1 when the server cannot be reached, 2 on a usage error.`,
  async run(args, io) {
    const { values } = parse(args, {
      url: { type: 'string' },
      'show-key': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const url = serverUrlFrom(io.env, values.url);
    const client = createQuireClient({ baseUrl: url, fetch: fetchWithin(5_000) });
    const payload = await client.setup().catch((err) => unreachable(url, err));
    const showKey = values['show-key'] === true;
    const key =
      showKey || payload.setupComplete
        ? payload.apiKey
        : `${payload.apiKey.slice(0, 9)}… (hidden: --show-key)`;
    const connect = Object.fromEntries(
      Object.entries(payload.links.connect).map(([k, v]) => [k, showKey ? v : redactLink(v ?? '')]),
    );
    if (values.json) {
      io.out(
        `${JSON.stringify({ ...payload, apiKey: key, links: { ...payload.links, connect } }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    const lines = [
      `Quire ${payload.version} at ${payload.server.url} (server id ${payload.serverId})`,
      `Setup complete: ${payload.setupComplete ? 'yes' : 'no'}`,
      `API key:        ${key}`,
      `Pairing:        ${payload.pairing.mode}${payload.pairing.relayUrl ? ` via ${payload.pairing.relayUrl}` : ''}`,
      ...(payload.pairing.relayCode ? [`Pairing code:   ${payload.pairing.relayCode} (single use)`] : []),
      '',
      'Open one of these on the device you want to connect:',
      `  hosted client:  ${connect.hostedClient}`,
      ...(connect.localDevUi ? [`  local dev UI:   ${connect.localDevUi}`] : []),
      '',
      `API base:       ${payload.links.apiBase}`,
      `API reference:  ${payload.links.directApiBase}/docs`,
    ];
    if (payload.setupComplete)
      lines.push(
        '',
        'Setup is complete: mint a key per device with "quire keys mint <name>", or rotate a pairing code.',
      );
    io.out(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};
