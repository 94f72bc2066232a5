import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * `serve --workers N` shares one port between N processes, so a scrape reaches one worker at
 * random and each keeps its own counters. The worker that is asked answers for all of them: it
 * asks the primary, which collects every worker's metrics (prom-client's AggregatorRegistry,
 * over the cluster's IPC channel) and sums them.
 */
const ASK = 'croupier:cluster-metrics';
/** prom-client gives up on a worker after 5 s; one more second for the round trip. */
const ANSWER_TIMEOUT_MS = 6_000;

interface Ask {
  type: typeof ASK;
  requestId: number;
}
interface Answer {
  type: typeof ASK;
  requestId: number;
  text?: string;
  error?: string;
}

const isMessage = (message: unknown): message is Ask & Answer =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ASK;

/** In the primary: answers a worker's request for the whole cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return;
    const answer = (fields: Partial<Answer>) => {
      if (worker.isConnected()) worker.send({ type: ASK, requestId: message.requestId, ...fields } satisfies Answer);
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/**
 * In a worker, at start: lets the primary collect `registry` (prom-client's own listener, which
 * every worker needs before any of them is scraped), and answers the function that asks the
 * primary for the metrics of every worker, summed.
 */
export function joinClusterMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries(registry);
  void new AggregatorRegistry();
  let nextRequest = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (!isMessage(message) || !('text' in message || 'error' in message)) return;
    const waiting = pending.get(message.requestId);
    pending.delete(message.requestId);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(`cluster metrics: ${message.error ?? 'no answer'}`));
  });
  return () => {
    const requestId = nextRequest++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(requestId);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, ANSWER_TIMEOUT_MS);
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          then(value);
        };
      pending.set(requestId, { resolve: settle(resolve), reject: settle(reject) });
      process.send!({ type: ASK, requestId } satisfies Ask);
    });
  };
}
