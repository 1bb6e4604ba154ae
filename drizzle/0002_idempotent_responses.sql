ALTER TABLE "idempotency_keys" ADD COLUMN "operation" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "response" jsonb;