CREATE TABLE "cgp"."rollouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entity_kind" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"enable_at" timestamp with time zone NOT NULL,
	"notify_days_before" integer DEFAULT 7 NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"error" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"approved_by" text,
	"ended_at" timestamp with time zone,
	"ended_by" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "rollouts_one_scheduled" ON "cgp"."rollouts" USING btree ("entity_id") WHERE status = 'scheduled';--> statement-breakpoint
CREATE INDEX "rollouts_due" ON "cgp"."rollouts" USING btree ("enable_at") WHERE status = 'scheduled';