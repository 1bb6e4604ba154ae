-- The inventory is kept by the database itself, in the transaction of every change to pets,
-- whoever writes: the service, an import, a restore script. Each statement adds its net change
-- per status to one slot of pet_inventory, the slot picked by the server process that runs it,
-- so concurrent writers on different connections update different rows instead of queueing on
-- one. Slots are locked in status order, the same order in every statement.
CREATE FUNCTION pet_inventory_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO pet_inventory AS i (status, slot, count)
    SELECT status, pg_backend_pid() % 64, count(*) FROM new_pets
    WHERE deleted_at IS NULL GROUP BY status ORDER BY status
    ON CONFLICT (status, slot) DO UPDATE SET count = i.count + excluded.count;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO pet_inventory AS i (status, slot, count)
    SELECT status, pg_backend_pid() % 64, sum(delta) FROM (
      SELECT status, 1 AS delta FROM new_pets WHERE deleted_at IS NULL
      UNION ALL
      SELECT status, -1 FROM old_pets WHERE deleted_at IS NULL
    ) AS moved GROUP BY status HAVING sum(delta) <> 0 ORDER BY status
    ON CONFLICT (status, slot) DO UPDATE SET count = i.count + excluded.count;
  ELSE
    INSERT INTO pet_inventory AS i (status, slot, count)
    SELECT status, pg_backend_pid() % 64, -count(*) FROM old_pets
    WHERE deleted_at IS NULL GROUP BY status ORDER BY status
    ON CONFLICT (status, slot) DO UPDATE SET count = i.count + excluded.count;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- No writer may change pets between the triggers' creation and the initial count below, so
-- every pet is counted exactly once: by the count, or by a trigger after this commits.
LOCK TABLE pets IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
CREATE TRIGGER pets_inventory_insert AFTER INSERT ON pets
  REFERENCING NEW TABLE AS new_pets FOR EACH STATEMENT EXECUTE FUNCTION pet_inventory_apply();
--> statement-breakpoint
CREATE TRIGGER pets_inventory_update AFTER UPDATE ON pets
  REFERENCING OLD TABLE AS old_pets NEW TABLE AS new_pets
  FOR EACH STATEMENT EXECUTE FUNCTION pet_inventory_apply();
--> statement-breakpoint
CREATE TRIGGER pets_inventory_delete AFTER DELETE ON pets
  REFERENCING OLD TABLE AS old_pets FOR EACH STATEMENT EXECUTE FUNCTION pet_inventory_apply();
--> statement-breakpoint
INSERT INTO pet_inventory (status, slot, count)
SELECT status, 0, count(*) FROM pets WHERE deleted_at IS NULL GROUP BY status;
