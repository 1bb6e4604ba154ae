import { describe, expect, it } from 'vitest';
import { isFeedBatch } from '../../server/domain/events/feed.js';
import type { StreamRequest } from '../../server/domain/events/streams.js';
import type { EventRun } from '../../server/domain/events/subscription.js';
import { useEventStreams } from '../helpers/event-streams.js';

/**
 * Live streams that want every event share the feed's batch itself: a thousand streams cost a
 * change one batch, not a thousand copies (bench: `npm run bench -- --streams`). Streams that
 * filter, resume or were partly read get their own runs, with the same events.
 */
const underTest = useEventStreams({ maxQueued: 1000, maxLagMs: 30_000 });
const { createPets } = underTest;

const follow = (request: Partial<StreamRequest> = {}) =>
  underTest.streams.subscribe({
    keyId: 'shared-batches-test',
    after: undefined,
    types: undefined,
    onCutOff: () => undefined,
    ...request,
  });

const idsOf = (runs: EventRun[] | undefined) =>
  (runs ?? []).flatMap((run) => run.map((event) => event.id));

describe('a batch of changes', () => {
  it('is queued as one shared run for every live stream that wants all of it', async () => {
    const [first, second] = [await follow(), await follow()];
    const created = await createPets(3);
    const [one, two] = [await first.nextRuns(), await second.nextRuns()];
    expect(one).toHaveLength(1);
    expect(one?.[0]).toBe(two?.[0]);
    expect(isFeedBatch(one?.[0] ?? [])).toBe(true);
    expect(one?.[0]?.map((event) => event.body.data.id)).toEqual(created);
    await Promise.all([first.return(), second.return()]);
  });

  it('gives a filtering and a partly read stream their own runs, with the same events', async () => {
    const live = await follow();
    const filtering = await follow({ types: ['pet.created'] });
    const partlyRead = await follow();
    await createPets(3);
    const expected = idsOf(await live.nextRuns());
    expect(expected).toHaveLength(3);

    const own = await filtering.nextRuns();
    expect(idsOf(own)).toEqual(expected);
    expect(own?.some(isFeedBatch)).toBe(false);

    const { value } = await partlyRead.next();
    expect(value?.id).toBe(String(expected[0]));
    const rest = await partlyRead.nextRuns();
    expect(idsOf(rest)).toEqual(expected.slice(1));
    expect(rest?.some(isFeedBatch)).toBe(false);
    await Promise.all([live, filtering, partlyRead].map((stream) => stream.return()));
  });

  it('reaches a resuming stream once, in order, after everything before it', async () => {
    const live = await follow();
    const resuming = await follow({ after: 0 });
    await createPets(3);
    const expected = idsOf(await live.nextRuns());
    const seen: number[] = [];
    while (seen.at(-1) !== expected.at(-1)) seen.push(...idsOf(await resuming.nextRuns()));
    expect(seen.slice(-3)).toEqual(expected);
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    await Promise.all([live.return(), resuming.return()]);
  });
});
