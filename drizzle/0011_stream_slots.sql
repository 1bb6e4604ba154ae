CREATE TABLE "stream_slots" (
	"key_id" text NOT NULL,
	"slot" integer NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "stream_slots_key_id_slot_pk" PRIMARY KEY("key_id","slot")
);
--> statement-breakpoint
CREATE INDEX "stream_slots_holder_idx" ON "stream_slots" USING btree ("holder");