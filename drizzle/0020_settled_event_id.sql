-- The highest event id no commit can still precede, in one statement. Appending writers hold the
-- log's order lock shared until they commit; this takes it exclusively, so it waits for them,
-- and holds it only inside the database: from a client, the lock was held across its round
-- trips, and every writer waited while a busy client got round to its next statement. Each query
-- of a VOLATILE function takes a fresh snapshot, so the max is read after those writers are done.
CREATE FUNCTION "settled_event_id"("order_lock" bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(order_lock);
  RETURN (SELECT coalesce(max("id"), 0) FROM "events");
END
$$;
