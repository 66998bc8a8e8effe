/** What the connector needs of an HTTP answer (a fetch Response is one). */
export interface RelayHttpAnswer {
  status: number;
  ok: boolean;
  text(): Promise<string>;
}

/** The fetch the connector uses; `fetch` and `relayApp.request` fit (the latter for in-process tests). */
export type FetchLike = (url: string, init: RequestInit) => Promise<RelayHttpAnswer> | RelayHttpAnswer;
