ALTER TABLE "cgp"."approvals" ALTER COLUMN "entity_kind" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."approvals" ALTER COLUMN "entity_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."approvals" ALTER COLUMN "entity_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."approvals" ALTER COLUMN "resource_type" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cgp"."approvals" ADD COLUMN "target" jsonb;--> statement-breakpoint
ALTER TABLE "cgp"."approvals" ADD COLUMN "sealed" text;