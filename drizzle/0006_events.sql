CREATE TYPE "public"."event_type" AS ENUM('pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.updated');--> statement-breakpoint
CREATE TABLE "event_retention" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"pruned_through" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "event_retention_one_row" CHECK ("event_retention"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" "event_type" NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_occurred_at_idx" ON "events" USING btree ("occurred_at");