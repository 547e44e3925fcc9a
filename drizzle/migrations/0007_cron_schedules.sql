CREATE TABLE "cgp"."cron_schedules" (
	"entity_id" uuid PRIMARY KEY NOT NULL,
	"entity_version" integer NOT NULL,
	"cron_expression" text NOT NULL,
	"next_run_at" timestamp with time zone NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_report_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cron_schedules_due" ON "cgp"."cron_schedules" USING btree ("next_run_at");