import { Agent, request } from 'node:http';
import { StringDecoder } from 'node:string_decoder';

/**
 * Holds `count` event streams open against the service, in its own process on the load core.
 * `sampled` of them parse every event and record how long after it happened it arrived; the
 * rest only read. Prints `ready` once every stream is open, its figures as a JSON line on
 * SIGUSR2 (and starts counting afresh), and exits on SIGTERM. A stream the server refuses
 * (any status but 200) or a connection that fails is not open: once every request has been
 * answered with some not open, it prints `failed` with the counts and exits 1, rather than
 * announcing streams that are not there.
 * argv: JSON of { url, key, count, sampled }.
 */
interface StreamsSpec {
  url: string;
  key: string;
  count: number;
  sampled: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as StreamsSpec;
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
let latencies: number[] = [];
let open = 0;
let ended = 0;
let refused = 0;
let failedToConnect = 0;

/** Every request answered, one way or another, with some not open: say so and stop. */
function checkAllAnswered(): void {
  if (open + refused + failedToConnect < spec.count || open === spec.count) return;
  process.stdout.write(`failed ${JSON.stringify({ open, refused, failedToConnect })}\n`);
  process.exit(1);
}

function parse(frames: string): void {
  for (const line of frames.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice('data: '.length)) as { occurredAt: string };
    latencies.push(Date.now() - Date.parse(event.occurredAt));
  }
}

function openStream(index: number): void {
  const req = request(`${spec.url}/v1/events`, {
    agent,
    headers: { authorization: `Bearer ${spec.key}` },
  });
  // Until the stream's first bytes, a failure means it never opened.
  let opened = false;
  req.on('response', (res) => {
    if (res.statusCode !== 200) {
      refused++;
      res.resume();
      checkAllAnswered();
      return;
    }
    let pending = '';
    // Only the sampled streams decode what they read: the rest stand for clients elsewhere, and
    // decoding a thousand copies of every event would spend the load core the bench needs.
    const sampled = index < spec.sampled;
    const decoder = new StringDecoder('utf8');
    res.on('data', (chunk: Buffer) => {
      if (!opened) {
        opened = true;
        if (++open === spec.count) process.stdout.write('ready\n');
        else checkAllAnswered();
      }
      if (!sampled) return;
      pending += decoder.write(chunk);
      const cut = pending.lastIndexOf('\n\n');
      if (cut === -1) return;
      parse(pending.slice(0, cut));
      pending = pending.slice(cut + 2);
    });
    res.on('end', () => ended++);
  });
  req.on('error', () => {
    if (opened) {
      ended++;
      return;
    }
    failedToConnect++;
    checkAllAnswered();
  });
  req.end();
}

for (let index = 0; index < spec.count; index++) openStream(index);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

process.on('SIGUSR2', () => {
  const sorted = [...latencies].sort((a, b) => a - b);
  latencies = [];
  process.stdout.write(
    `${JSON.stringify({
      open,
      ended,
      deliveries: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    })}\n`,
  );
});
process.once('SIGTERM', () => process.exit(0));
