DROP INDEX "cgp"."outbox_pending";--> statement-breakpoint
ALTER TABLE "cgp"."outbox" ADD COLUMN "idempotency_key" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."outbox" ADD COLUMN "dead_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "outbox_due" ON "cgp"."outbox" USING btree ("topic","next_attempt_at") WHERE delivered_at is null and dead_at is null;--> statement-breakpoint
CREATE INDEX "outbox_delivered" ON "cgp"."outbox" USING btree ("delivered_at") WHERE delivered_at is not null;