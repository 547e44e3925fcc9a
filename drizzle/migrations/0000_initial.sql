CREATE SCHEMA "cgp";
--> statement-breakpoint
CREATE TABLE "cgp"."startup_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"fingerprint" text NOT NULL,
	"tasks" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"duration_ms" integer
);
