import type { Logger } from '../../core/ports.ts';

/** Where a connector is: its status's `state`. */
export type ConnectorStateName = 'stopped' | 'connecting' | 'online' | 'offline' | 'refused';

/**
 * A connector's state as its status reports it (either transport): where it is, since when, the
 * last error, how often it came back online; each change logged once (offline and refused as
 * warnings).
 */
export class ConnectorState {
  state: ConnectorStateName = 'stopped';
  since = Date.now();
  lastError: string | null = null;
  reconnects = 0;
  private everOnline = false;

  constructor(
    private readonly logger: Logger,
    /** Fields of every log line (the serverId, the transport). */
    private readonly fields: Record<string, string>,
  ) {}

  /** Moves to `next` (a no-op when there already); `error` becomes the last error either way. */
  set(next: ConnectorStateName, error?: string): void {
    if (error !== undefined) this.lastError = error;
    if (next === this.state) return;
    if (next === 'online' && this.everOnline) this.reconnects += 1;
    if (next === 'online') this.everOnline = true;
    this.state = next;
    this.since = Date.now();
    const fields = { ...this.fields, ...(error ? { error } : {}) };
    if (next === 'offline' || next === 'refused') this.logger.warn(`relay connector ${next}`, fields);
    else this.logger.info(`relay connector ${next}`, fields);
  }
}
