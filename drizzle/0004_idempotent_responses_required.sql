ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pet_id_pets_id_fk";
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "operation" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "response" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "pet_id";