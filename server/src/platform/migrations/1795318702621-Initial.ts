import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795318702621 implements MigrationInterface {
  name = 'Initial1795318702621';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "accounts" ("id" text NOT NULL, "email" text NOT NULL, "granted_roles" text array NOT NULL DEFAULT '{}', "points" integer NOT NULL DEFAULT '0', "identity_provider" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_sign_in_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_5a7a02c20412299d198e097a8fe" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_accounts_email" ON "accounts"  ("email") `);
    await queryRunner.query(
      `CREATE TABLE "api_tokens" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "scopes" text array NOT NULL, "token_hash" text NOT NULL, "token_prefix" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c587455266b5fa8dace7194caac" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_api_tokens_owner_id" ON "api_tokens"  ("owner_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "idx_api_tokens_token_hash" ON "api_tokens"  ("token_hash") `);
    await queryRunner.query(
      `CREATE TABLE "oidc_logins" ("state" text NOT NULL, "code_verifier" text NOT NULL, "nonce" text NOT NULL, "return_to" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d5c06611878638eba14d55eefa1" PRIMARY KEY ("state"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "sessions" ("id" text NOT NULL, "token_hash" text NOT NULL, "user_id" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "idx_sessions_token_hash" ON "sessions"  ("token_hash") `);
    await queryRunner.query(`CREATE INDEX "idx_sessions_user_id" ON "sessions"  ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "apps" ("id" text NOT NULL, "owner_id" text NOT NULL, "name" text NOT NULL, "short_description" text NOT NULL, "icon_url" text NOT NULL, "app_url" text NOT NULL, "category" text NOT NULL, "pricing" text NOT NULL, "price_points" integer, "webhook_url" text, "status" text NOT NULL, "revision" integer NOT NULL DEFAULT '1', "submitted_at" TIMESTAMP WITH TIME ZONE NOT NULL, "review_due_at" TIMESTAMP WITH TIME ZONE NOT NULL, "published_listing" jsonb, "listed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c5121fda0f8268f1f7f84134e19" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_apps_owner_id" ON "apps"  ("owner_id") `);
    await queryRunner.query(`CREATE INDEX "idx_apps_store" ON "apps"  ("listed_at", "id") WHERE published_listing IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "idx_apps_review_queue" ON "apps"  ("submitted_at", "id") WHERE status = 'PENDING_REVIEW'`);
    await queryRunner.query(
      `CREATE TABLE "notifications" ("id" text NOT NULL, "user_id" text NOT NULL, "kind" text NOT NULL, "message" text NOT NULL, "app_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "read_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6a72c3c0f683f6462415e653c3a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_notifications_user" ON "notifications"  ("user_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "review_decisions" ("id" text NOT NULL, "app_id" text NOT NULL, "reviewer_id" text NOT NULL, "outcome" text NOT NULL, "reasons" text array NOT NULL, "note" text, "app_revision" integer NOT NULL, "decided_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_1fb0883c5b1ef83c015f2ab3b24" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_review_decisions_app" ON "review_decisions"  ("app_id", "decided_at") `);
    await queryRunner.query(
      `CREATE TABLE "client_secrets" ("app_id" text NOT NULL, "key_id" text NOT NULL, "ciphertext" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_609e67f1004129d960fc3b5b888" PRIMARY KEY ("app_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "client_secret_audit" ("id" text NOT NULL, "app_id" text NOT NULL, "actor_id" text NOT NULL, "action" text NOT NULL, "ip_address" text, "at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a41d0c3c32b8e37fece5c194559" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_client_secret_audit_app" ON "client_secret_audit"  ("app_id", "at") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_client_secret_audit_app"`);
    await queryRunner.query(`DROP TABLE "client_secret_audit"`);
    await queryRunner.query(`DROP TABLE "client_secrets"`);
    await queryRunner.query(`DROP INDEX "public"."idx_review_decisions_app"`);
    await queryRunner.query(`DROP TABLE "review_decisions"`);
    await queryRunner.query(`DROP INDEX "public"."idx_notifications_user"`);
    await queryRunner.query(`DROP TABLE "notifications"`);
    await queryRunner.query(`DROP INDEX "public"."idx_apps_review_queue"`);
    await queryRunner.query(`DROP INDEX "public"."idx_apps_store"`);
    await queryRunner.query(`DROP INDEX "public"."idx_apps_owner_id"`);
    await queryRunner.query(`DROP TABLE "apps"`);
    await queryRunner.query(`DROP INDEX "public"."idx_sessions_user_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_sessions_token_hash"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
    await queryRunner.query(`DROP TABLE "oidc_logins"`);
    await queryRunner.query(`DROP INDEX "public"."idx_api_tokens_token_hash"`);
    await queryRunner.query(`DROP INDEX "public"."idx_api_tokens_owner_id"`);
    await queryRunner.query(`DROP TABLE "api_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."idx_accounts_email"`);
    await queryRunner.query(`DROP TABLE "accounts"`);
  }
}
