CREATE TYPE "public"."order_status" AS ENUM('placed', 'approved', 'delivered', 'cancelled');--> statement-breakpoint
CREATE TABLE "orders" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "orders_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"pet_id" bigint NOT NULL,
	"status" "order_status" DEFAULT 'placed' NOT NULL,
	"placed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "pets_status_id_idx";--> statement-breakpoint
ALTER TABLE "pets" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "pets" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_pet_id_pets_id_fk" FOREIGN KEY ("pet_id") REFERENCES "public"."pets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "orders_status_id_idx" ON "orders" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "orders_pet_id_id_idx" ON "orders" USING btree ("pet_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_one_open_per_pet_idx" ON "orders" USING btree ("pet_id") WHERE "orders"."status" in ('placed', 'approved');--> statement-breakpoint
CREATE INDEX "pets_live_status_id_idx" ON "pets" USING btree ("status","id") WHERE "pets"."deleted_at" is null;