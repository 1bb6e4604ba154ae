CREATE TABLE "pet_inventory" (
	"status" "pet_status" NOT NULL,
	"slot" integer NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "pet_inventory_status_slot_pk" PRIMARY KEY("status","slot")
);
--> statement-breakpoint
CREATE INDEX "pets_live_category_id_id_idx" ON "pets" USING btree ("category_id","id") WHERE "pets"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "pets_live_name_trgm_idx" ON "pets" USING gin (lower("name") gin_trgm_ops) WITH (gin_pending_list_limit=128) WHERE "pets"."deleted_at" is null;