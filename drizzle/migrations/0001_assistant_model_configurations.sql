CREATE TABLE "cgp"."model_configurations" (
	"kind" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"api_key_ciphertext" text NOT NULL,
	"api_key_masked" text NOT NULL,
	"endpoint" text NOT NULL,
	"api_version" text NOT NULL,
	"model" text NOT NULL,
	"deployment" text NOT NULL,
	"custom_header" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL
);
