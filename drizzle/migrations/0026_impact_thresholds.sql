ALTER TABLE "cgp"."impact_resources" ADD COLUMN "candidate_value" double precision;--> statement-breakpoint
ALTER TABLE "cgp"."impact_resources" ADD COLUMN "baseline_value" double precision;--> statement-breakpoint
ALTER TABLE "cgp"."impact_resources" ADD COLUMN "candidate_threshold" text;--> statement-breakpoint
ALTER TABLE "cgp"."impact_resources" ADD COLUMN "baseline_threshold" text;