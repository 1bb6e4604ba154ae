CREATE TABLE "stream_tickets" (
	"hash" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "stream_tickets_expires_at_idx" ON "stream_tickets" USING btree ("expires_at");