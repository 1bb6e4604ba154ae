CREATE TABLE "pet_names" (
	"name" text PRIMARY KEY NOT NULL,
	"live_pets" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "pets_name_trgm_idx";--> statement-breakpoint
CREATE INDEX "pet_names_name_trgm_idx" ON "pet_names" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "pets_live_lower_name_id_idx" ON "pets" USING btree (lower("name"),"id","name","status","category_id") WHERE "pets"."deleted_at" is null;--> statement-breakpoint
-- A partial index's statistics are never read by the planner, and at the default target an
-- ANALYZE of pets would sample 30,000 rows for them (0015): 3,000 as for the columns.
ALTER INDEX "pets_live_lower_name_id_idx" ALTER COLUMN 1 SET STATISTICS 10;
--> statement-breakpoint
-- No read of pets wants parallel workers: a page is at most 101 rows, and starting workers
-- costs more than it. A name search's walk of the ids, planned but not run for most terms,
-- was planned with two workers, and PostgreSQL started them on every search: 125-180 ms at 1M.
ALTER TABLE "pets" SET (parallel_workers = 0);
--> statement-breakpoint
-- pet_names is kept by the database itself, in the transaction of every change to pets,
-- whoever writes: each statement adds its net change per lower-cased name, and a name no live
-- pet has any more is removed. Rows are changed in name order, the same order in every
-- statement, so two writers never wait for each other in opposite orders. A statement that
-- changes no name or deletion (a status change) nets to nothing and writes nothing.
CREATE FUNCTION pet_names_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO pet_names AS n (name, live_pets)
    SELECT lower(name), count(*) FROM new_pets WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 1
    ON CONFLICT (name) DO UPDATE SET live_pets = n.live_pets + excluded.live_pets;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO pet_names AS n (name, live_pets)
    SELECT name, sum(delta) FROM (
      SELECT lower(name) AS name, 1 AS delta FROM new_pets WHERE deleted_at IS NULL
      UNION ALL
      SELECT lower(name), -1 FROM old_pets WHERE deleted_at IS NULL
    ) AS moved GROUP BY name HAVING sum(delta) <> 0 ORDER BY name
    ON CONFLICT (name) DO UPDATE SET live_pets = n.live_pets + excluded.live_pets;
  ELSE
    INSERT INTO pet_names AS n (name, live_pets)
    SELECT lower(name), -count(*) FROM old_pets WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 1
    ON CONFLICT (name) DO UPDATE SET live_pets = n.live_pets + excluded.live_pets;
  END IF;
  DELETE FROM pet_names WHERE live_pets = 0 AND name IN (SELECT lower(name) FROM old_pets);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- No writer may change pets between the triggers' creation and the fill below, so every pet
-- is counted exactly once: by the fill, or by a trigger after this commits.
LOCK TABLE pets IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
CREATE TRIGGER pets_names_insert AFTER INSERT ON pets
  REFERENCING NEW TABLE AS new_pets FOR EACH STATEMENT EXECUTE FUNCTION pet_names_apply();
--> statement-breakpoint
CREATE TRIGGER pets_names_update AFTER UPDATE ON pets
  REFERENCING OLD TABLE AS old_pets NEW TABLE AS new_pets
  FOR EACH STATEMENT EXECUTE FUNCTION pet_names_apply();
--> statement-breakpoint
CREATE TRIGGER pets_names_delete AFTER DELETE ON pets
  REFERENCING OLD TABLE AS old_pets FOR EACH STATEMENT EXECUTE FUNCTION pet_names_apply();
--> statement-breakpoint
INSERT INTO pet_names (name, live_pets)
SELECT lower(name), count(*) FROM pets WHERE deleted_at IS NULL GROUP BY 1;
--> statement-breakpoint
ANALYZE "pet_names";
