import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/auth/context.js';
import { signedInPerson } from '../../platform/auth/principal.js';
import { App, isOwner } from '../apps/index.js';
import { SecretAuditEntry } from './secret-audit.entity.js';
import type { SecretsService } from './secrets.service.js';

/** App's secret field, answered by the secrets feature (which stands on apps, not the other way round). */
@Resolver(() => App)
export class AppSecretFieldsResolver {
  constructor(private readonly secrets: SecretsService) {}

  @FieldResolver(() => [SecretAuditEntry], { description: 'Who revealed or rotated the client secret; the owner only' })
  clientSecretAudit(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<SecretAuditEntry[]> | SecretAuditEntry[] {
    // Secrets are handled by people only (revealClientSecret admits no token), and so is their audit.
    return isOwner(app, signedInPerson(principal)) ? this.secrets.auditTrail(app.id) : [];
  }
}
