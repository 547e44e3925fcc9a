CREATE TABLE "cgp"."environments" (
	"name" text PRIMARY KEY NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text NOT NULL,
	"refreshed_at" timestamp with time zone DEFAULT now() NOT NULL
);
