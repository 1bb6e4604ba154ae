import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/**
 * A server-sent events reader on a raw node:http connection of its own, so a test sees exactly
 * what went over the wire: every frame (`id:`, `event:`, `data:`) and every comment line, and
 * whether the body ended cleanly (the last chunk arrived) or the connection was cut.
 */

export interface SseFrame {
  id: string | undefined;
  event: string | undefined;
  data: string;
  /** When its last line arrived (performance.now()). */
  receivedAt: number;
}

/** How a stream's body finished: its last chunk arrived, or the connection went first. */
export type StreamEnd = 'end' | 'reset';

export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body of an answer that is not a stream (an error), once it ended. */
  body: string;
  /** Every frame received so far, in order. */
  frames: SseFrame[];
  /** Every comment line received so far, without its leading `:`. */
  comments: string[];
  /** Resolves once `count` frames arrived in all; rejects after `timeoutMs`. */
  waitForFrames(count: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** Resolves when a comment arrives that `predicate` accepts. */
  waitForComment(predicate: (text: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the body finished, however it did. */
  ended: Promise<StreamEnd>;
  /** Closes the connection from the client's side. */
  close(): void;
}

export interface OpenStreamOptions {
  headers?: Record<string, string>;
  /** Rejects when no answer's head arrives in time. */
  timeoutMs?: number;
}

/** Splits a body into frames and comments as the EventSource algorithm does. */
export class SseParser {
  private pending = '';
  private frame: { id?: string; event?: string; data?: string[] } = {};

  constructor(
    private readonly onFrame: (frame: SseFrame) => void,
    private readonly onComment: (text: string) => void,
  ) {}

  feed(text: string): void {
    const lines = (this.pending + text).split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (line === '') {
      const { id, event, data } = this.frame;
      if (data) this.onFrame({ id, event, data: data.join('\n'), receivedAt: performance.now() });
      this.frame = {};
      return;
    }
    if (line.startsWith(':')) {
      this.onComment(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') (this.frame.data ??= []).push(value);
    else if (field === 'id') this.frame.id = value;
    else if (field === 'event') this.frame.event = value;
  }
}

function waitUntil<T>(
  found: () => T | undefined,
  subscribe: (wake: () => void) => () => void,
  timeoutMs: number,
  what: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const value = found();
      if (value === undefined) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(value);
    };
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
    }, timeoutMs);
    const unsubscribe = subscribe(check);
    check();
  });
}

/** Opens `GET <origin><path>` and resolves once the answer's head arrived. */
export function openStream(
  origin: string,
  path: string,
  options: OpenStreamOptions = {},
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, {
      headers: { accept: 'text/event-stream', ...options.headers },
      agent: false,
    });
    const headTimer = setTimeout(() => {
      req.destroy(new Error('no answer in time'));
    }, options.timeoutMs ?? 10_000);
    req.once('error', (error) => {
      clearTimeout(headTimer);
      reject(error);
    });
    req.once('response', (res) => {
      clearTimeout(headTimer);
      const watchers = new Set<() => void>();
      const wakeAll = () => {
        for (const wake of watchers) wake();
      };
      const subscribe = (wake: () => void) => {
        watchers.add(wake);
        return () => watchers.delete(wake);
      };
      let finished = false;
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        frames: [],
        comments: [],
        waitForFrames: (count, timeoutMs = 5_000) =>
          waitUntil(
            () => (stream.frames.length >= count || finished ? stream.frames : undefined),
            subscribe,
            timeoutMs,
            () => `${count} frames (have ${stream.frames.length})`,
          ).then((frames) => {
            if (frames.length < count) {
              throw new Error(`the stream ended after ${frames.length} of ${count} frames`);
            }
            return frames;
          }),
        waitForComment: (predicate, timeoutMs = 5_000) =>
          waitUntil(
            () => stream.comments.find(predicate),
            subscribe,
            timeoutMs,
            () => `a comment (have ${JSON.stringify(stream.comments)})`,
          ),
        ended: new Promise<StreamEnd>((resolveEnd) => {
          res.once('end', () => {
            finished = true;
            resolveEnd('end');
            wakeAll();
          });
          res.once('close', () => {
            if (finished) return;
            finished = true;
            resolveEnd('reset');
            wakeAll();
          });
        }),
        close: () => {
          req.destroy();
        },
      };
      // A cut connection is an outcome the tests look at (`ended`), not an error to throw.
      res.on('error', () => undefined);
      req.on('error', () => undefined);
      const parser = new SseParser(
        (frame) => stream.frames.push(frame),
        (text) => stream.comments.push(text),
      );
      const isStream = stream.status === 200;
      res.setEncoding('utf8').on('data', (chunk: string) => {
        if (isStream) parser.feed(chunk);
        else stream.body += chunk;
        wakeAll();
      });
      resolve(stream);
    });
    req.end();
  });
}
