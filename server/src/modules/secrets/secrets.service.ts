import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../../config.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { newId } from '../../platform/ids.js';
import { entityColumns } from '../../platform/prepared-query.js';
import { requireOwnedApp } from '../apps/app-access.js';
import type { Principal } from '../../platform/auth/principal.js';
import { StoredClientSecret } from './client-secret.entity.js';
import type { ClientSecret } from './client-secret.type.js';
import { SecretAuditEntry } from './secret-audit.entity.js';
import { generateClientSecret, openSecret, sealSecret } from '../../platform/secret-crypto.js';

type SecretAction = 'REVEAL' | 'ROTATE';

/** Audit entries shown per app; the query cost estimate counts `clientSecretAudit` by it (graphql-limits LIST_BOUNDS). */
export const AUDIT_TRAIL_LENGTH = 100;

export class SecretsService {
  constructor(private readonly db: DataSource, private readonly config: Config) {}

  private get currentKey() {
    return this.config.encryptionKeys[0];
  }

  /** Creates the app's first secret inside the submission's transaction. */
  async createForApp(manager: EntityManager, appId: string, now: Date): Promise<void> {
    await manager.insert(StoredClientSecret, { appId, createdAt: now, ...sealSecret(generateClientSecret(), appId, this.currentKey) });
  }

  /** The secret in clear, for signing webhooks. Never returned to a client except through reveal/rotate. */
  async signingSecret(appId: string, manager: EntityManager = this.db.manager): Promise<string> {
    const stored = await manager.findOneByOrFail(StoredClientSecret, { appId });
    return openSecret(stored, appId, this.config.encryptionKeys);
  }

  async reveal(principal: Principal, appId: string, ipAddress: string | null): Promise<ClientSecret> {
    return this.db.transaction(async (manager) => {
      await this.assertOwner(manager, principal, appId);
      const stored = await manager.findOneByOrFail(StoredClientSecret, { appId });
      const value = openSecret(stored, appId, this.config.encryptionKeys);
      if (stored.keyId !== this.currentKey.id) {
        // Re-seal under the current key as it is read, so an old key can be retired once all rows have moved.
        await manager.update(StoredClientSecret, { appId }, sealSecret(value, appId, this.currentKey));
      }
      await this.audit(manager, principal, appId, 'REVEAL', ipAddress);
      return { appId, value, createdAt: stored.createdAt };
    });
  }

  async rotate(principal: Principal, appId: string, ipAddress: string | null): Promise<ClientSecret> {
    return this.db.transaction(async (manager) => {
      await this.assertOwner(manager, principal, appId);
      const value = generateClientSecret();
      const createdAt = new Date();
      await manager.update(StoredClientSecret, { appId }, { createdAt, ...sealSecret(value, appId, this.currentKey) });
      await this.audit(manager, principal, appId, 'ROTATE', ipAddress);
      return { appId, value, createdAt };
    });
  }

  /** The newest AUDIT_TRAIL_LENGTH entries of an app, newest first; the apps of one list ask together (one query). */
  readonly auditTrail = perTickLoader(async (appIds: string[]) => {
    // Per app by its (app_id, at) index, so an app revealed thousands of times costs no more than the rows shown.
    const rows: SecretAuditEntry[] = await this.db.query(
      `SELECT ${entityColumns(this.db, SecretAuditEntry, 's')}
         FROM unnest($1::text[]) AS wanted(app_id)
         CROSS JOIN LATERAL (SELECT * FROM client_secret_audit c WHERE c.app_id = wanted.app_id ORDER BY c.at DESC LIMIT $2) s`,
      [appIds, AUDIT_TRAIL_LENGTH],
    );
    const byApp = new Map<string, SecretAuditEntry[]>();
    for (const row of rows) {
      const entry = Object.assign(new SecretAuditEntry(), row);
      const ofApp = byApp.get(entry.appId);
      if (ofApp) ofApp.push(entry);
      else byApp.set(entry.appId, [entry]);
    }
    return byApp;
  }, (): SecretAuditEntry[] => []);

  private async assertOwner(manager: EntityManager, principal: Principal, appId: string): Promise<void> {
    // Lock the app row so a reveal and a rotation of the same secret are serialised.
    await requireOwnedApp(manager, principal, appId, { lock: 'pessimistic_read', forbiddenMessage: 'Only the developer who owns this app can see or rotate its client secret' });
  }

  private async audit(manager: EntityManager, principal: Principal, appId: string, action: SecretAction, ipAddress: string | null): Promise<void> {
    await manager.insert(SecretAuditEntry, { id: newId.secretAudit(), appId, actorId: principal.userId, action, ipAddress, at: new Date() });
  }
}
