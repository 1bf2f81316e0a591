import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * API processes keep verified sessions and API tokens in memory for a few seconds (identity's credential cache).
 * Whatever changes what one of them proves — a session ended or shortened, a token revoked, expired or given
 * other scopes, an account's roles or address, the apps an account owns (an API token's Webhook Logs read them)
 * — notifies `plaza_credentials` with the account's id when it commits, from the database itself: a change made
 * by any release, tool or hand-written statement reaches every API process at once, and none is left to a path
 * that remembered to publish. TRUNCATE notifies '*', everyone. Writes that change none of it (a token's last use,
 * a balance, a sign-in's time) do not notify: the WHEN clauses skip them before the function runs.
 */
export class CredentialNotices1796000035500 implements MigrationInterface {
  name = 'CredentialNotices1796000035500';

  async up(queryRunner: QueryRunner): Promise<void> {
    // TG_ARGV[0] names the table's column holding the account id; both the old and the new one are told
    // (an owner that changes loses and gains), the same payload twice in a transaction being sent once.
    await queryRunner.query(`CREATE FUNCTION plaza_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_LEVEL = 'STATEMENT' THEN
            PERFORM pg_notify('plaza_credentials', '*');
            RETURN NULL;
          END IF;
          IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM pg_notify('plaza_credentials', to_jsonb(OLD) ->> TG_ARGV[0]); END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM pg_notify('plaza_credentials', to_jsonb(NEW) ->> TG_ARGV[0]); END IF;
          RETURN NULL;
        END $$`);
    // Catalog-only changes, but each takes its table's lock: waited for at most a second at a time.
    await withShortLocks(queryRunner, [
      `CREATE TRIGGER sessions_credentials_changed AFTER UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION plaza_credentials_changed('user_id')`,
      `CREATE TRIGGER sessions_credentials_truncated AFTER TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION plaza_credentials_changed()`,
      `CREATE TRIGGER api_tokens_credentials_changed AFTER UPDATE ON api_tokens FOR EACH ROW
         WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.scopes IS DISTINCT FROM NEW.scopes
               OR OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.token_hash IS DISTINCT FROM NEW.token_hash)
         EXECUTE FUNCTION plaza_credentials_changed('owner_id')`,
      `CREATE TRIGGER api_tokens_credentials_deleted AFTER DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION plaza_credentials_changed('owner_id')`,
      `CREATE TRIGGER api_tokens_credentials_truncated AFTER TRUNCATE ON api_tokens FOR EACH STATEMENT EXECUTE FUNCTION plaza_credentials_changed()`,
      `CREATE TRIGGER accounts_credentials_changed AFTER UPDATE ON accounts FOR EACH ROW
         WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.granted_roles IS DISTINCT FROM NEW.granted_roles OR OLD.id IS DISTINCT FROM NEW.id)
         EXECUTE FUNCTION plaza_credentials_changed('id')`,
      `CREATE TRIGGER accounts_credentials_deleted AFTER DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION plaza_credentials_changed('id')`,
      `CREATE TRIGGER accounts_credentials_truncated AFTER TRUNCATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION plaza_credentials_changed()`,
      `CREATE TRIGGER apps_owner_changed AFTER INSERT OR DELETE ON apps FOR EACH ROW EXECUTE FUNCTION plaza_credentials_changed('owner_id')`,
      `CREATE TRIGGER apps_owner_moved AFTER UPDATE ON apps FOR EACH ROW WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.id IS DISTINCT FROM NEW.id)
         EXECUTE FUNCTION plaza_credentials_changed('owner_id')`,
      `CREATE TRIGGER apps_owner_truncated AFTER TRUNCATE ON apps FOR EACH STATEMENT EXECUTE FUNCTION plaza_credentials_changed()`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [
      `DROP TRIGGER sessions_credentials_changed ON sessions`,
      `DROP TRIGGER sessions_credentials_truncated ON sessions`,
      `DROP TRIGGER api_tokens_credentials_changed ON api_tokens`,
      `DROP TRIGGER api_tokens_credentials_deleted ON api_tokens`,
      `DROP TRIGGER api_tokens_credentials_truncated ON api_tokens`,
      `DROP TRIGGER accounts_credentials_changed ON accounts`,
      `DROP TRIGGER accounts_credentials_deleted ON accounts`,
      `DROP TRIGGER accounts_credentials_truncated ON accounts`,
      `DROP TRIGGER apps_owner_changed ON apps`,
      `DROP TRIGGER apps_owner_moved ON apps`,
      `DROP TRIGGER apps_owner_truncated ON apps`,
    ]);
    await queryRunner.query(`DROP FUNCTION plaza_credentials_changed()`);
  }
}
