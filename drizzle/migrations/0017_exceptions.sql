CREATE TABLE "cgp"."governance_exceptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entity_id" uuid NOT NULL,
	"entity_kind" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_like" text NOT NULL,
	"environment" text,
	"reason" text NOT NULL,
	"ticket" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"expiry_notice_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "cgp"."compliance_days" ADD COLUMN "waived" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "governance_exceptions_entity" ON "cgp"."governance_exceptions" USING btree ("entity_id","expires_at");--> statement-breakpoint
CREATE INDEX "governance_exceptions_unnoticed" ON "cgp"."governance_exceptions" USING btree ("expires_at") WHERE expiry_notice_at is null;